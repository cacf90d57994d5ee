/**
 * Scenario files (format 1): decoding with JSON paths, running them through the real loop with
 * the scripted model, and reporting verdicts.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Capture from "./Capture.ts"
/** @since 0.1.0 */
export * as Conversation from "./Conversation.ts"
/** @since 0.1.0 */
export * as InputFile from "./InputFile.ts"
/** @since 0.1.0 */
export * as JsonText from "./JsonText.ts"
/** @since 0.1.0 */
export * as Mounter from "./Mounter.ts"
/** @since 0.1.0 */
export * as Parallel from "./Parallel.ts"
/** @since 0.1.0 */
export * as Pattern from "./Pattern.ts"
/** @since 0.1.0 */
export * as Permissions from "./Permissions.ts"
/** @since 0.1.0 */
export * as PlanScenario from "./PlanScenario.ts"
/** @since 0.1.0 */
export * as Report from "./Report.ts"
/** @since 0.1.0 */
export * as ResponseCases from "./ResponseCases.ts"
/** @since 0.1.0 */
export * as ScenarioFile from "./ScenarioFile.ts"
/** @since 0.1.0 */
export * as ScriptedTools from "./ScriptedTools.ts"
/** @since 0.1.0 */
export * as Suite from "./Suite.ts"
/** @since 0.1.0 */
export * as Variant from "./Variant.ts"
/** @since 0.1.0 */
export * as Verdict from "./Verdict.ts"
