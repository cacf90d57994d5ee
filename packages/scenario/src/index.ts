/**
 * Scenario files (format 1): decoding with JSON paths, running them through the real loop with
 * the scripted model, and reporting verdicts.
 *
 * @since 0.1.0
 */

/** From a recorded trace to a regression test: a conversation trace turned into a scenario that replays it. @since 0.1.0 */
export * as Capture from "./Capture.ts"
/** The sandboxed command tool in conversation scenarios: `commands`, and the `Commands` service that makes it. @since 0.2.0 */
export * as Commands from "./Commands.ts"
/** Runs a `conversation` scenario through the real loop with the scripted model, and judges its outcome. @since 0.1.0 */
export * as Conversation from "./Conversation.ts"
/** Reads an input file without hanging or guessing: regular files only, bounded in size, UTF-8. @since 0.1.0 */
export * as InputFile from "./InputFile.ts"
/** JSON text read strictly: duplicate keys and nesting past `maxDepth` refused with their JSON path. @since 0.1.0 */
export * as JsonText from "./JsonText.ts"
/** Live cases: one trial against a live model in a fresh environment, judged by the pass criterion written before running. @since 0.2.0 */
export * as LiveCase from "./LiveCase.ts"
/** MCP servers in conversation scenarios: the `mcp` declarations and the `Mounter` service that mounts them. @since 0.1.0 */
export * as Mounter from "./Mounter.ts"
/** A suite's jobs across workers (any `Spawn`), results in the jobs' order, a crashed worker replaced. @since 0.1.0 */
export * as Parallel from "./Parallel.ts"
/** Scenario patterns (`{ "pattern": regex }`) compiled with RE2 and matched in linear time. @since 0.1.0 */
export * as Pattern from "./Pattern.ts"
/** Permission gates in conversation scenarios: `policy`, scripted `approvals`, `untrustedOutput`. @since 0.1.0 */
export * as Permissions from "./Permissions.ts"
/** Runs a `plan` scenario through the real session state machine with its rule planner, and judges it. @since 0.1.0 */
export * as PlanScenario from "./PlanScenario.ts"
/** Verdicts for people (lines, colours, totals) and for machines (one JSON object per scenario). @since 0.1.0 */
export * as Report from "./Report.ts"
/** Runs a `response-cases` scenario: each case's response through the variant's parser, against `expected`. @since 0.1.0 */
export * as ResponseCases from "./ResponseCases.ts"
/** Real folders in conversation scenarios: `root`, and the `Roots` service that copies one per run. @since 0.1.0 */
export * as Roots from "./Roots.ts"
/** Scenario files, format 1: their Schema, and decoding one into a scenario or an error naming the JSON path. @since 0.1.0 */
export * as ScenarioFile from "./ScenarioFile.ts"
/** Scripted tools of scenario files: any object in, the n-th result out for the n-th call. @since 0.1.0 */
export * as ScriptedTools from "./ScriptedTools.ts"
/** Scenario files on disk: finding every `*.json` under some paths, loading and running them. @since 0.1.0 */
export * as Suite from "./Suite.ts"
/** Harness variants (`fixed`, `before`): the tool-response parser a scenario runs under. @since 0.1.0 */
export * as Variant from "./Variant.ts"
/** What running a scenario found: passed or not, how it ended, and each failure in words. @since 0.1.0 */
export * as Verdict from "./Verdict.ts"
