// Preloaded with `node --import` by test/cli-startup.test.ts: appends the URL of every module the
// process resolves (except node: builtins) to the file named by $CORTEXD_TEST_MODULE_TRACE.
import { register } from "node:module";

register(new URL("./module-trace-hooks.mjs", import.meta.url));
