/**
 * Runs a `conversation` scenario: the file tools of its locale over its files, the scripted
 * model playing its turns through the real loop, then the outcome compared with the file's.
 *
 * @since 0.1.0
 */
import { Compactor, Strategy } from "@agent-harness/compaction"
import { Loop, Message, type Model, Trace } from "@agent-harness/executor"
import type { FileTools } from "@agent-harness/file-tools"
import { Divergence, type Script, ScriptedModel } from "@agent-harness/scripted-model"
import type { Toolset } from "@agent-harness/tool-schema"
import { Effect, Result } from "effect"
import * as Criteria from "./internal/criteria.ts"
import * as Environment from "./internal/environment.ts"
import * as Pattern from "./Pattern.ts"
import type * as ScenarioFile from "./ScenarioFile.ts"
import type * as ScriptedTools from "./ScriptedTools.ts"
import * as Variant from "./Variant.ts"
import * as Verdict from "./Verdict.ts"

/**
 * The annotations a conversation run records on the trace so that `Capture` can replay it: the
 * harness variant, the file tools' locale, the files at the start and at the end, the scripted
 * tools, the MCP servers as mounted, the permission policy, the approvals and whether tool
 * output was marked as untrusted. A host that runs the loop itself (`harness agent`) records
 * the same keys, so its traces capture too.
 *
 * @since 0.1.0
 */
export const annotations: typeof Environment.annotations = Environment.annotations

/**
 * The opening messages of a conversation file.
 *
 * @since 0.1.0
 */
export const opening = (file: ScenarioFile.ConversationFile): ReadonlyArray<Message.Message> => [
  ...(file.system === undefined ? [] : [Message.system(file.system)]),
  ...(file.user === undefined ? [] : [Message.user(file.user)])
]

/**
 * The script a conversation file describes.
 *
 * @since 0.1.0
 */
export const script = (file: ScenarioFile.ConversationFile): Script.Script => ({
  messages: opening(file),
  turns: file.turns.map((turn) => ({
    reply: turn.reply,
    expect: turn.expect?.map((e) => ({
      tool_use_id: e.tool_use_id,
      is_error: e.is_error,
      content: typeof e.content === "string" ? e.content : Pattern.unsafeMake(e.content.pattern)
    }))
  }))
})

const fromModelError = (error: Model.ModelError): Verdict.Failure => {
  const reason = error.reason
  if (Divergence.isDivergence(reason)) {
    switch (reason._tag) {
      case "ScriptDivergence":
        return {
          kind: "divergence",
          turn: reason.turn,
          tool_use_id: reason.toolUseId,
          expected: reason.expected,
          seen: reason.seen,
          message: reason.message
        }
      case "ScriptExhausted":
        return {
          kind: "script_exhausted",
          turn: reason.turn,
          expected: `${reason.turn - 1} model call(s)`,
          seen: `a call ${reason.turn}`,
          message: reason.message
        }
      case "ScriptUnfinished":
        return {
          kind: "script_unfinished",
          expected: `${reason.total} model call(s)`,
          seen: `${reason.used} model call(s)`,
          message: reason.message
        }
    }
  }
  return { kind: "divergence", turn: error.turn, expected: "a reply", seen: reason.message, message: error.message }
}

/**
 * The paths whose content differs between two file maps (present in one only, or changed),
 * sorted; key order does not matter.
 *
 * @since 0.1.0
 */
export const differentFiles = (
  expected: Readonly<Record<string, string>>,
  seen: Readonly<Record<string, string>>
): ReadonlyArray<string> => {
  const paths = [...new Set([...Object.keys(expected), ...Object.keys(seen)])].sort()
  return paths.filter((p) => expected[p] !== seen[p])
}

/** The tool_use ids whose results are elided markers in `after` and were not in `before`, and those `after` no longer has. */
const changedBy = (
  before: ReadonlyArray<Message.Message>,
  after: ReadonlyArray<Message.Message>
): { readonly elided: ReadonlyArray<string>; readonly dropped: ReadonlyArray<string> } => {
  const results = (messages: ReadonlyArray<Message.Message>) => {
    const found = new Map<string, string>()
    for (const m of messages) {
      if (m.role !== "user" || typeof m.content === "string") continue
      for (const b of m.content) if (b.type === "tool_result") found.set(b.tool_use_id, b.content)
    }
    return found
  }
  const was = results(before)
  const now = results(after)
  const elided: Array<string> = []
  const dropped: Array<string> = []
  for (const [id, content] of was) {
    const kept = now.get(id)
    if (kept === undefined) dropped.push(id)
    else if (Strategy.isElidedMarker(kept) && !Strategy.isElidedMarker(content)) elided.push(id)
  }
  return { elided: elided.sort(), dropped: dropped.sort() }
}

/**
 * The loop's compaction for a file with `compaction` (`Compactor.make`, the default strategy),
 * each call checked against the script: what it elided and dropped before call N must be what
 * `turns[N - 1].compacted` pins (nothing, without it); a difference is a `divergence` failure
 * naming the call, and the run goes on as compacted.
 */
const pinnedCompaction = (
  spec: ScenarioFile.ConversationFile,
  failures: Array<Verdict.Failure>
): Loop.Compact | undefined => {
  const settings = spec.compaction
  if (settings === undefined) return undefined
  const compactor = Compactor.make(settings)
  return (request) =>
    Effect.map(compactor(request), (decided) => {
      const seen =
        decided._tag === "Compacted" ? changedBy(request.messages, decided.messages) : { elided: [], dropped: [] }
      const pin = spec.turns[request.turn - 1]?.compacted
      const expected = { elided: [...(pin?.elided ?? [])].sort(), dropped: [...(pin?.dropped ?? [])].sort() }
      const show = (c: typeof seen) => JSON.stringify(c)
      if (show(seen) !== show(expected)) {
        failures.push({
          kind: "divergence",
          turn: request.turn,
          expected: show(expected),
          seen: show(seen),
          message: `before model call ${request.turn}, compaction did not do what the script pins (turns[${request.turn - 1}].compacted)\n  expected: ${show(expected)}\n  seen:     ${show(seen)}`
        })
      }
      return decided
    })
}

/**
 * The tools of a conversation file: the file tools of its locale, and its scripted tools
 * (which replace file tools of the same name). Counters start afresh on each call.
 *
 * @since 0.1.0
 */
export const toolset: (
  file: Pick<ScenarioFile.ConversationFile, "locale" | "tools">
) => Toolset.Toolset<FileTools.FileTool | ScriptedTools.ScriptedTool> = Environment.toolset

/**
 * Runs a conversation scenario to its verdict, under a harness variant (default `fixed`). Never
 * fails: a run that leaves its script is a failed verdict. `onTurn` sees each turn as it
 * happens (for walkthroughs). The MCP servers the file declares (`mcp`) are mounted first with
 * the `Mounter` service, for the length of the run; when there is none, or a server cannot be
 * mounted, the verdict fails with a `mcp` failure naming the declaration, and nothing runs.
 * Every call goes through the gate of the file's `policy` (made by the `Permissions` service,
 * with the file's `approvals` scripted); a run that leaves its approvals (a call asked about
 * with no answer left, an answer for another call, answers never used) fails with a
 * `permission` failure for each; without a `Permissions`, nothing runs. A file that declares a
 * `root` folder runs over a fresh copy of its tree (the `Roots` service's; the initial files
 * recorded on the trace are the copy's), and `outcome.files` is compared with the copy's tree
 * after the run; without a `Roots`, or when the copy cannot be made, a `root` failure, and
 * nothing runs. A file with a pass criterion (`pass`) has it judged after the run, over its
 * result and final files, as a live case's is: each check that does not hold is a `pass`
 * failure in the words a live trial gets.
 *
 * @since 0.1.0
 */
export const run = (
  scenario: ScenarioFile.Conversation,
  file: string,
  options?: {
    readonly onTurn?: ((turn: Loop.Turn) => Effect.Effect<void>) | undefined
    readonly variant?: Variant.Variant | undefined
  }
): Effect.Effect<Verdict.Verdict<Verdict.ConversationOutcome>> =>
  Effect.gen(function* () {
    const spec = scenario.file
    const variant = options?.variant ?? Variant.defaultVariant
    const opened = yield* Effect.result(Environment.open(spec, file, variant.name))
    if (Result.isFailure(opened)) {
      const notRun: Verdict.ConversationOutcome = { stop: "diverged", files: opened.failure.files, turns: 0 }
      return Verdict.make(scenario, file, variant.name, notRun, [opened.failure.failure])
    }
    const environment = opened.success
    if (spec.compaction !== undefined) {
      yield* Trace.record({ type: "trace.annotated", key: annotations.compaction, value: spec.compaction })
    }
    const compactionFailures: Array<Verdict.Failure> = []
    const compact = pinnedCompaction(spec, compactionFailures)
    const loopOptions = {
      toolset: environment.toolset,
      messages: opening(spec),
      maxTurns: spec.maxTurns ?? Loop.defaultMaxTurns,
      breaker: spec.breaker,
      onTurn: options?.onTurn,
      ...(compact === undefined ? {} : { compact })
    }
    const streaming = spec.stream === undefined || spec.stream === false ? undefined : spec.stream
    const played = yield* (
      streaming === undefined
        ? Loop.run(loopOptions)
        : // The stream always ends with run.ended or a failure: NoResult cannot happen here.
          Effect.catchTag(Loop.fold(Loop.stream(loopOptions)), "NoResult", Effect.die)
    ).pipe(
      Effect.provide(
        ScriptedModel.layer(
          script(spec),
          streaming === true || streaming === undefined ? undefined : { chunking: streaming }
        )
      ),
      Environment.provide(environment, variant),
      Effect.result
    )
    const { approvalFailures, files: finalFiles } = yield* Environment.close(environment)
    if (Result.isFailure(played)) {
      const error = played.failure
      // A decoded file gives valid options; a file built by hand may not.
      const failure: Verdict.Failure =
        error._tag === "InvalidOption"
          ? { kind: "invalid", expected: "valid options for the loop", seen: error.message, message: error.message }
          : fromModelError(error)
      const turns = error._tag === "InvalidOption" ? 0 : error.turn
      const diverged: Verdict.ConversationOutcome = { stop: "diverged", files: finalFiles, turns }
      return Verdict.make(scenario, file, variant.name, diverged, [...approvalFailures, failure])
    }
    const result = played.success
    const failures: Array<Verdict.Failure> = [...approvalFailures, ...compactionFailures]
    const expected = spec.outcome
    if (expected.stop !== result.stop) {
      failures.push({
        kind: "stop",
        expected: expected.stop,
        seen: result.stop,
        message: `the run stopped with '${result.stop}', the scenario expects '${expected.stop}'`
      })
    }
    if (expected.text !== undefined && expected.text !== result.text) {
      const seen = result.text === undefined ? "(no final text)" : JSON.stringify(result.text)
      failures.push({
        kind: "text",
        expected: JSON.stringify(expected.text),
        seen,
        message: `the final text differs\n  expected: ${JSON.stringify(expected.text)}\n  seen:     ${seen}`
      })
    }
    if (expected.files !== undefined) {
      for (const path of differentFiles(expected.files, finalFiles)) {
        const e = expected.files[path]
        const s = finalFiles[path]
        const show = (v: string | undefined) => (v === undefined ? "(no such file)" : JSON.stringify(v))
        failures.push({
          kind: "files",
          expected: show(e),
          seen: show(s),
          message: `file '${path}' differs after the run\n  expected: ${show(e)}\n  seen:     ${show(s)}`
        })
      }
    }
    // The criterion, when the file has one: judged as a live trial is, in the same words.
    if (spec.pass !== undefined) {
      failures.push(...Criteria.verdictFailures(Criteria.evaluate(spec.pass, { ended: played, files: finalFiles })))
    }
    const outcome: Verdict.ConversationOutcome = {
      stop: result.stop,
      text: result.text,
      files: finalFiles,
      turns: result.turns.length
    }
    return Verdict.make(scenario, file, variant.name, outcome, failures)
  }).pipe(Effect.scoped)
