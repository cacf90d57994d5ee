/**
 * Tools defined once with Effect Schema: decoding raw calls into typed calls or violations,
 * the message catalogue the model reads, and JSON Schema tool definitions for model APIs.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Canonical from "./Canonical.ts"
/** @since 0.1.0 */
export * as JsonSchema from "./JsonSchema.ts"
/** @since 0.1.0 */
export * as MessageCatalog from "./MessageCatalog.ts"
/** @since 0.1.0 */
export * as Render from "./Render.ts"
/** @since 0.1.0 */
export * as ResponseContract from "./ResponseContract.ts"
/** @since 0.1.0 */
export * as Tool from "./Tool.ts"
/** @since 0.1.0 */
export * as ToolName from "./ToolName.ts"
/** @since 0.1.0 */
export * as Toolset from "./Toolset.ts"
/** @since 0.1.0 */
export * as Violation from "./Violation.ts"
