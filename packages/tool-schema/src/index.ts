/**
 * Tools defined once with Effect Schema: decoding raw calls into typed calls or violations,
 * the message catalogue the model reads, and JSON Schema tool definitions for model APIs.
 *
 * @since 0.1.0
 */

/** The canonical JSON text of a value, `encode` and `equal`: when two calls' inputs are the same call. @since 0.1.0 */
export * as Canonical from "./Canonical.ts"
/** A JSON path as text (`turns[2].reply[0].id`, `files["lista.txt"]`), written one way everywhere. @since 0.1.0 */
export * as JsonPath from "./JsonPath.ts"
/** Texts in several languages written one way: one set per shipped locale, a package's texts following the locale in use. @since 0.1.0 */
export * as Localized from "./Localized.ts"
/** Tool definitions for model APIs (Anthropic, OpenAI) generated from each tool's Schema. @since 0.1.0 */
export * as JsonSchema from "./JsonSchema.ts"
/** The words the harness says to the model, in English and Spanish, as a service you can replace. @since 0.1.0 */
export * as MessageCatalog from "./MessageCatalog.ts"
/** Which paths the running call may read or reveal: the gate's rules on paths, for tools that show many. @since 0.1.0 */
export * as PathGuard from "./PathGuard.ts"
/** Values and thrown values as text the model can read, never throwing. @since 0.1.0 */
export * as Render from "./Render.ts"
/** The tool-response contract: a backend's status envelope read by its status, never by its text. @since 0.1.0 */
export * as ResponseContract from "./ResponseContract.ts"
/** A tool: name, description, Schema parameters, annotations and a run function (`Tool.make`). @since 0.1.0 */
export * as Tool from "./Tool.ts"
/** A tool's rich result: text, images, resource links and structured content, beside the text (`ToolContent.make`). @since 0.1.0 */
export * as ToolContent from "./ToolContent.ts"
/** Provider-safe tool names: the alias a provider is sent for a name it would refuse. @since 0.1.0 */
export * as ToolName from "./ToolName.ts"
/** The tools a model may call, by name, and decoding a raw call into a typed call or a violation. @since 0.1.0 */
export * as Toolset from "./Toolset.ts"
/** Why a raw tool call was not executed, as plain JSON-ready values. @since 0.1.0 */
export * as Violation from "./Violation.ts"
