/**
 * The one bound on an MCP message's size, both ways: what `Serve` reads and what a mount
 * should send and read. It is the official SDK's stdio limit (10 MiB), so a message we send
 * is one an SDK server reads, and one it sends is one we read. A served message over it is
 * answered with a JSON-RPC error naming the limit (when its id can be read) and skipped: the
 * server keeps serving.
 *
 * @since 0.1.0
 */

/**
 * The largest message, in bytes of its JSON line (10 MiB).
 *
 * @since 0.1.0
 */
export const maxBytes: number = 10 * 1024 * 1024

/**
 * The JSON-RPC error code an over-size request is answered with (`-32600`, invalid request).
 *
 * @since 0.1.0
 */
export const errorCode: -32600 = -32600

/**
 * The error text of a message of `bytes` bytes (or more) that is over the limit.
 *
 * @since 0.1.0
 */
export const tooLarge = (bytes: number): string =>
  `the message is ${bytes} bytes, more than the limit of ${maxBytes} bytes (10 MiB): it was not read`
