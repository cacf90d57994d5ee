/**
 * See a run: conversation traces, plan session traces and test reports as one self-contained
 * HTML page (inline script and style allowed by hash under a strict Content-Security-Policy, no
 * network request), written to a file or served on 127.0.0.1. An edge package: the harness's
 * own packages never import it.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ArgDiff from "./ArgDiff.ts"
/** @since 0.1.0 */
export * as ConversationTrace from "./ConversationTrace.ts"
/** @since 0.1.0 */
export * as Html from "./Html.ts"
/** @since 0.1.0 */
export * as Input from "./Input.ts"
/** @since 0.1.0 */
export * as Lines from "./Lines.ts"
/** @since 0.1.0 */
export * as Model from "./Model.ts"
/** @since 0.1.0 */
export * as PlanTrace from "./PlanTrace.ts"
/** @since 0.1.0 */
export * as Server from "./Server.ts"
/** @since 0.1.0 */
export * as TestReport from "./TestReport.ts"
