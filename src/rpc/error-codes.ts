/** JSON-RPC error codes of the wire protocol (a leaf: clients check them without loading the schemas). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A path outside every workspace, or not indexed. */
  PathRefused: -32001,
  NotFound: -32002,
  /** Unknown workspace name/root. */
  UnknownWorkspace: -32003,
  ShuttingDown: -32004,
  RequestTooLarge: -32005,
  /** The daemon is at maxConnections; the connection is closed after this error (id null). */
  TooManyConnections: -32006,
  /** A response (or a batch's responses together) over the server's response size limit: ask for less. */
  ResponseTooLarge: -32007,
  /** A request that overran its deadline (src/rpc/deadlines.ts): abandoned, its run slot freed. */
  RequestTimeout: -32008,
  /** A memory the request's scope may not see (a private file asked for from a group; docs/security.md). */
  NotVisible: -32009,
  /**
   * A memory or config file the request must read or write is not a file cortexd can use (a FIFO, a
   * device, a socket or a directory where a regular file should be, or one over its size cap):
   * nothing was read or written; the message names the file and what to do.
   */
  UnusableFile: -32010,
} as const;
