/**
 * MCP both ways, with errors as observations: serve any toolset over MCP (stdio or Streamable
 * HTTP), and mount an MCP server's tools as a toolset whose calls are validated locally.
 *
 * @since 0.1.0
 */

/** A served tool asks the MCP client that called it: its model (sampling), its user (elicitation). @since 0.1.0 */
export * as Caller from "./Caller.ts"
/** MCP `tools/call` results and observations, both ways. @since 0.1.0 */
export * as CallResult from "./CallResult.ts"
/** Our tool annotations as MCP's tool annotation hints, both ways. @since 0.1.0 */
export * as Hints from "./Hints.ts"
/** A server's input JSON Schema as a tool's parameters, checked locally. @since 0.1.0 */
export * as InputSchema from "./InputSchema.ts"
/** The texts a mounted tool shows when the server is at fault (English, Spanish). @since 0.1.0 */
export * as Messages from "./Messages.ts"
/** The one bound on an MCP message's size, both ways. @since 0.1.0 */
export * as MessageSize from "./MessageSize.ts"
/** Mount an MCP server's tools (stdio or Streamable HTTP) as a toolset. @since 0.1.0 */
export * as Mount from "./Mount.ts"
/** Serve any toolset over MCP (stdio or Streamable HTTP), every call through `execute`. @since 0.1.0 */
export * as Serve from "./Serve.ts"
/** Serve a toolset on stdio without loading the MCP SDK (`Serve.stdio` is it). @since 0.1.0 */
export * as ServeStdio from "./ServeStdio.ts"
/** A client transport over a child's stdio that knows how the child ended. @since 0.1.0 */
export * as StdioChild from "./StdioChild.ts"
/** Whether a mounted server's tool annotations are believed (the user's to give, per server). @since 0.1.0 */
export * as Trust from "./Trust.ts"
/** Provider-safe tool names for mounted tools. @since 0.1.0 */
export * as ToolName from "./ToolName.ts"
