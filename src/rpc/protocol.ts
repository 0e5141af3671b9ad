/**
 * The JSON-RPC 2.0 methods cortexd serves: their parameter schemas (validated by the server,
 * invalid → -32602 naming the field) and result types (used by the typed client). A leaf: it
 * imports zod and nothing else of the project (the lint enforces it), so an internal refactor
 * cannot change the API without a change here; test/types/wire-types.ts checks that the internal
 * results still fit these types.
 */
export { MethodParams, type MethodName, type ParamsOf } from "./protocol/params.js";
export type * from "./protocol/memory.js";
export type * from "./protocol/session.js";
export type * from "./protocol/maintenance.js";
export type * from "./protocol/status.js";
export type * from "./protocol/audit.js";
export type * from "./protocol/history.js";
export type { MethodResults } from "./protocol/methods.js";

/** Application error codes (JSON-RPC reserves -32768..-32000 for the protocol). */
export { ErrorCodes } from "./error-codes.js";
