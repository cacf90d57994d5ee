/**
 * MCP both ways, with errors as observations: serve any toolset over MCP (stdio or Streamable
 * HTTP), and mount an MCP server's tools as a toolset whose calls are validated locally.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as CallResult from "./CallResult.ts"
/** @since 0.1.0 */
export * as Hints from "./Hints.ts"
/** @since 0.1.0 */
export * as InputSchema from "./InputSchema.ts"
/** @since 0.1.0 */
export * as Messages from "./Messages.ts"
/** @since 0.1.0 */
export * as Mount from "./Mount.ts"
/** @since 0.1.0 */
export * as Serve from "./Serve.ts"
/** @since 0.1.0 */
export * as StdioChild from "./StdioChild.ts"
/** @since 0.1.0 */
export * as ToolName from "./ToolName.ts"
