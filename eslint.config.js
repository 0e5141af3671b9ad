// ESLint (flat config): typescript-eslint's recommended rules, plus the import boundaries that keep the
// layers apart (docs/architecture.md, "Rules the lint enforces"). Formatting is Prettier's job.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Use errorMessage(), never (err as Error).message. */
const errorMessageRule = {
  selector: "MemberExpression[property.name='message'] > TSAsExpression[typeAnnotation.typeName.name='Error']",
  message: "Use errorMessage(err) from src/util/error-message.ts instead of (err as Error).message.",
};

/** No SQL outside src/index: a statement, pragma or transaction on a connection is the storage layer's job. */
const sqlMessage =
  "SQL runs only in src/index (the storage layer): add a method to the repository that owns the table (docs/architecture.md).";
const noSqlRules = [
  { selector: "CallExpression[callee.property.name=/^(prepare|pragma)$/]", message: sqlMessage },
  // store.transaction(fn) is the storage layer's own API (the indexer groups its writes with it); a transaction
  // on anything else is a connection's.
  {
    selector:
      "CallExpression[callee.property.name='transaction']:not([callee.object.name='store']):not([callee.object.property.name='store'])",
    message: sqlMessage,
  },
  // exec() with a string is SQL; RegExp#exec takes the text to match (not a literal) everywhere in src.
  {
    selector: "CallExpression[callee.property.name='exec'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
    message: sqlMessage,
  },
];

/**
 * One way to read a file (src/util/regular-file.ts): a workspace or config file read with readFile /
 * readFileSync could be a FIFO (blocks forever) or /dev/zero (reads forever). The files below read
 * only cortexd's own files (its package, lock, state and index files, stdin) and are listed by name.
 */
const readFileMessage =
  "Read workspace and config files through src/util/regular-file.ts (non-blocking open, fstat, size cap): readFile/readFileSync may block on a FIFO or read /dev/zero forever.";
const readFileRule = ["node:fs", "node:fs/promises", "fs", "fs/promises"].map((name) => ({
  name,
  importNames: ["readFile", "readFileSync"],
  message: readFileMessage,
}));
/** Files allowed readFile/readFileSync: none reads a workspace or config file. */
const ownFileReaders = [
  "src/util/regular-file.ts",
  "src/version.ts", // cortexd's package.json
  "src/util/lock-file.ts", // the data dir's lock files
  "src/index/db/open-read-only.ts", // the index database image
  "src/session/state.ts", // the data dir's state file
  "src/session/saves-journal.ts", // the data dir's dedupe journal
  "src/cli/commands/save.ts", // stdin (fd 0)
  "src/cli/commands/daemon.ts", // the instance lock file
];

/**
 * The rooms (docs/architecture.md, "Rules the lint enforces"), by folder under src/. Written as regexes over
 * relative specifiers (`^(../)+folder/`), so they hold wherever a file sits in its room (src/index/x.ts or
 * src/index/db/x.ts) — before and after scripts/dev/rooms.mjs.
 */
const aboveStorage = [
  "indexer", // the indexing pipeline sits above the storage
  "search",
  "consolidate",
  "engine",
  "daemon",
  "rpc",
  "client",
  "cli",
  "hooks",
  "mcp",
  "session",
  "capture",
  "memory-files",
  "service",
  "sync",
  "multi-device",
  "init",
  "install",
  "ui",
  "console",
];
/** A relative import of any of `folders` (the wire protocol, a leaf, is always allowed). */
const importOf = (folders) => `^(\\.\\./)+(${folders.join("|")})(/|\\.js$)`;
const rpcButProtocol = "^(\\.\\./)+rpc/(?!protocol\\.js$|protocol/)";

const indexPatterns = [
  {
    // The wire protocol is a leaf (it imports nothing of the project): its types are every layer's vocabulary.
    regex: importOf(aboveStorage.filter((d) => d !== "rpc")),
    message:
      "src/index is the storage layer: it imports nothing above it (the indexer, search, the daemon…) but the wire protocol's types (docs/architecture.md).",
  },
  {
    regex: rpcButProtocol,
    message:
      "src/index is the storage layer: of src/rpc it may import the wire protocol's types only (docs/architecture.md).",
  },
];

/** The indexer (src/indexer) sits above the storage and below whatever serves or asks: it imports none of them. */
const aboveIndexer = [
  "search",
  "consolidate",
  "engine",
  "daemon",
  "client",
  "cli",
  "hooks",
  "mcp",
  "service",
  "session",
  "capture",
  "ui",
  "console",
];
const indexerPatterns = [
  {
    regex: importOf(aboveIndexer),
    message:
      "src/indexer is the indexing pipeline: it sits above the storage (src/index) and imports nothing that serves or asks (search, engine, daemon, cli…); pass what it needs in (docs/architecture.md).",
  },
  {
    regex: rpcButProtocol,
    message: "src/indexer may import the wire protocol's types only of src/rpc (docs/architecture.md).",
  },
];

/** Search reads the index; it never runs the indexing pipeline (the engine and the daemon do). */
const searchPatterns = [
  {
    regex: importOf(["indexer"]),
    message:
      "src/search does not import the indexer (src/indexer): it reads the storage (src/index); the engine and the daemon run syncs (docs/architecture.md).",
  },
];

/** better-sqlite3 and readFile: the import paths every file outside the storage is refused. */
const outsideStoragePaths = [{ name: "better-sqlite3", message: sqlMessage }, ...readFileRule];

/** The wire protocol is a leaf: zod and its own files only, so no internal type reaches the API by import. */
const protocolMessage =
  "src/rpc/protocol is a leaf: it imports zod and its own files only; declare the wire type there (docs/architecture.md).";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "coverage/**",
      ".bench/**",
      "integrations/openclaw/node_modules/**",
      "integrations/openclaw/vendor/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        URL: "readonly",
        performance: "readonly",
        structuredClone: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        TextDecoder: "readonly",
        TextEncoder: "readonly",
        queueMicrotask: "readonly",
        fetch: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  {
    files: ["src/**/*.ts", "scripts/**/*.ts"],
    rules: {
      "no-restricted-syntax": ["error", errorMessageRule],
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/index/**"],
    rules: {
      "no-restricted-syntax": ["error", errorMessageRule, ...noSqlRules],
      "no-restricted-imports": ["error", { paths: outsideStoragePaths }],
    },
  },
  {
    // No file in src/ over 400 lines, counted as formatted (docs/architecture.md): split by job.
    files: ["src/**/*.ts"],
    rules: { "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Tests poke at raw JSON answers; `any` there is the honest type.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["src/index/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { paths: readFileRule, patterns: indexPatterns }],
    },
  },
  {
    files: ["src/indexer/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: outsideStoragePaths, patterns: indexerPatterns }] },
  },
  {
    files: ["src/search/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: outsideStoragePaths, patterns: searchPatterns }] },
  },
  {
    files: ["src/rpc/protocol.ts", "src/rpc/error-codes.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [{ regex: "^(?!zod$|\\./protocol/[\\w-]+\\.js$|\\./error-codes\\.js$)", message: protocolMessage }],
        },
      ],
    },
  },
  {
    files: ["src/rpc/protocol/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(?!zod$|\\./[\\w-]+\\.js$)", message: protocolMessage }] },
      ],
    },
  },
  {
    // The files that read only cortexd's own files (ownFileReaders) keep the other import rules.
    files: ownFileReaders.filter((f) => !f.startsWith("src/index/")),
    rules: {
      "no-restricted-imports": ["error", { paths: [{ name: "better-sqlite3", message: sqlMessage }] }],
    },
  },
  {
    files: ownFileReaders.filter((f) => f.startsWith("src/index/")),
    rules: { "no-restricted-imports": ["error", { patterns: indexPatterns }] },
  },
);
