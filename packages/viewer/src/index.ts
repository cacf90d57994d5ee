/**
 * See a run: conversation traces, plan session traces and test reports as one self-contained
 * HTML page (inline script and style allowed by hash under a strict Content-Security-Policy, no
 * network request), written to a file or served on 127.0.0.1. An edge package: the harness's
 * own packages never import it.
 *
 * @since 0.1.0
 */

/** The argument diff of a revised step: every JSON path where the old and new args differ. @since 0.1.0 */
export * as ArgDiff from "./ArgDiff.ts"
/** A conversation trace (the executor's JSON Lines) read into what the page draws, turn by turn. @since 0.1.0 */
export * as ConversationTrace from "./ConversationTrace.ts"
/** The self-contained HTML page (strict Content-Security-Policy, no network request): `render` inputs into it. @since 0.1.0 */
export * as Html from "./Html.ts"
/** The input files of a page and their kinds, told from their content: `page` turns them into the page's data. @since 0.1.0 */
export * as Input from "./Input.ts"
/** JSON Lines read leniently: every line that parses kept, every other a problem naming its line. @since 0.1.0 */
export * as Lines from "./Lines.ts"
/** The page's data as plain JSON types, shared with the page's script. @since 0.1.0 */
export * as Model from "./Model.ts"
/** A plan session trace (the planner's JSON Lines) or a `SessionResult` read into what the page draws. @since 0.1.0 */
export * as PlanTrace from "./PlanTrace.ts"
/** Serves a page on 127.0.0.1 for as long as a scope is open. @since 0.1.0 */
export * as Server from "./Server.ts"
/** Test reports (`harness test --json`) read into one table, variants side by side. @since 0.1.0 */
export * as TestReport from "./TestReport.ts"
/** Trials reports (`harness test --trials N`) read into what the page draws; traces they link to. @since 0.1.0 */
export * as TrialsReport from "./TrialsReport.ts"
/** A trials report drawn as HTML with inline SVG charts (no script needed) and a table of every number. @since 0.1.0 */
export * as TrialsChart from "./TrialsChart.ts"
