/**
 * Runs a `conversation` scenario: the file tools of its locale over its files, the scripted
 * model playing its turns through the real loop, then the outcome compared with the file's.
 *
 * @since 0.1.0
 */
import { Execute, Loop, Message, type Model, Trace } from "@agent-harness/executor"
import { Files, FileTools } from "@agent-harness/file-tools"
import { Divergence, type Script, ScriptedModel } from "@agent-harness/scripted-model"
import { MessageCatalog, type Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, Option, Result, type Scope } from "effect"
import * as Mounter from "./Mounter.ts"
import * as Pattern from "./Pattern.ts"
import * as Permissions from "./Permissions.ts"
import * as Roots from "./Roots.ts"
import type * as ScenarioFile from "./ScenarioFile.ts"
import * as ScriptedTools from "./ScriptedTools.ts"
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
export const annotations = {
  variant: "variant",
  locale: "locale",
  files: "files",
  finalFiles: "files.final",
  tools: "tools",
  mcp: "mcp",
  policy: "policy",
  approvals: "approvals",
  untrustedOutput: "untrusted_output"
} as const

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

/**
 * The tools of a conversation file: the file tools of its locale, and its scripted tools
 * (which replace file tools of the same name). Counters start afresh on each call.
 *
 * @since 0.1.0
 */
export const toolset = (
  file: ScenarioFile.ConversationFile
): Toolset.Toolset<FileTools.FileTool | ScriptedTools.ScriptedTool> =>
  Toolset.merge(FileTools.forLocale(file.locale ?? "en"), Toolset.make(...ScriptedTools.make(file.tools ?? {})))

/** A failure to mount the declared MCP servers (nothing of the script ran). */
const mountFailure = (where: string, problem: string): Verdict.Failure => ({
  kind: "mcp",
  expected: "the declared MCP servers, mounted",
  seen: problem,
  message: `${where}: ${problem}`
})

/** A failure of the permission gate: it could not be made, or the run left its approvals. */
const permissionFailure = (expected: string, problem: string): Verdict.Failure => ({
  kind: "permission",
  expected,
  seen: problem,
  message: problem
})

/** A failure to copy the declared root folder (nothing of the script ran). */
const rootFailure = (problem: string): Verdict.Failure => ({
  kind: "root",
  expected: "a fresh copy of the declared root folder",
  seen: problem,
  message: `root: ${problem}`
})

/**
 * The files the run works on: a fresh copy of the file's `root` folder (made by the `Roots`
 * service, removed when the scope closes), or its inline `files` in memory. Fails when the file
 * declares a root and there is no `Roots`, or the copy cannot be made.
 */
const filesOf = (
  spec: ScenarioFile.ConversationFile,
  file: string
): Effect.Effect<Files.FilesShape, Verdict.Failure, Scope.Scope> =>
  Effect.gen(function* () {
    if (spec.root === undefined) return Files.makeFiles(spec.files ?? {})
    const roots = yield* Effect.serviceOption(Roots.Roots)
    if (Option.isNone(roots)) return yield* Effect.fail(rootFailure(Roots.missing))
    return yield* Effect.mapError(roots.value.open(spec.root, file), (error) => rootFailure(error.problem))
  })

/**
 * The gate of the file's `policy` (and `approvals`, `untrustedOutput`) with the `Permissions`
 * service, its declarations recorded on the trace; `undefined` when the file declares no policy.
 * Fails when there is no `Permissions` or the declarations do not decode.
 */
const gateOf = (spec: ScenarioFile.ConversationFile): Effect.Effect<Permissions.Gate | undefined, Verdict.Failure> =>
  Effect.gen(function* () {
    if (spec.policy === undefined) return undefined
    const expected = "the declared permission policy, enforced"
    const permissions = yield* Effect.serviceOption(Permissions.Permissions)
    if (Option.isNone(permissions))
      return yield* Effect.fail(permissionFailure(expected, `policy: ${Permissions.missing}`))
    const declared: Permissions.Declared = {
      policy: spec.policy,
      approvals: spec.approvals,
      untrustedOutput: spec.untrustedOutput
    }
    const gate = yield* Effect.mapError(permissions.value.gate(declared), (error) =>
      permissionFailure(expected, error.message)
    )
    yield* Trace.record({ type: "trace.annotated", key: annotations.policy, value: spec.policy })
    if (spec.approvals !== undefined) {
      yield* Trace.record({ type: "trace.annotated", key: annotations.approvals, value: spec.approvals })
    }
    if (spec.untrustedOutput !== undefined) {
      yield* Trace.record({ type: "trace.annotated", key: annotations.untrustedOutput, value: spec.untrustedOutput })
    }
    return gate
  })

/**
 * Mounts the declared MCP servers in order with the `Mounter` for the length of the scope: their
 * tools in one toolset, and the declarations as mounted. Fails, naming the declaration, when
 * there is no `Mounter`, a server cannot be mounted, or two servers mount one tool name.
 */
const mountDeclared = (
  declarations: ReadonlyArray<Mounter.Declaration>,
  file: string
): Effect.Effect<
  { readonly toolset: Toolset.Toolset<Tool.Any>; readonly mounted: ReadonlyArray<Mounter.Declaration> },
  Verdict.Failure,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const mounter = yield* Effect.serviceOption(Mounter.Mounter)
    if (Option.isNone(mounter)) return yield* Effect.fail(mountFailure("mcp", Mounter.missing(declarations.length)))
    const tools: Array<Tool.Any> = []
    const owners = new Map<string, number>()
    const mounted: Array<Mounter.Declaration> = []
    for (const [i, declaration] of declarations.entries()) {
      const where = `mcp[${i}] (${declaration.prefix})`
      const one = yield* Effect.mapError(mounter.value.mount(declaration, file), (error) =>
        mountFailure(where, error.message)
      )
      for (const tool of one.toolset.tools) {
        const owner = owners.get(tool.name)
        if (owner !== undefined) {
          return yield* Effect.fail(
            mountFailure(
              where,
              `its tool '${tool.name}' has the name of a tool of mcp[${owner}]: choose prefixes that do not start one with the other`
            )
          )
        }
        owners.set(tool.name, i)
        tools.push(tool)
      }
      mounted.push(one.declaration)
    }
    return { toolset: Toolset.make(...tools), mounted }
  })

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
 * nothing runs.
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
    const locale = spec.locale ?? "en"
    const variant = options?.variant ?? Variant.defaultVariant
    const opened = yield* Effect.result(filesOf(spec, file))
    if (Result.isFailure(opened)) {
      const notRun: Verdict.ConversationOutcome = { stop: "diverged", files: {}, turns: 0 }
      return Verdict.make(scenario, file, variant.name, notRun, [opened.failure])
    }
    const files = opened.success
    // What a trace needs besides the loop's own events to be replayed (`harness capture`).
    yield* Trace.record({ type: "trace.annotated", key: annotations.variant, value: variant.name })
    yield* Trace.record({ type: "trace.annotated", key: annotations.locale, value: locale })
    yield* Trace.record({
      type: "trace.annotated",
      key: annotations.files,
      value: spec.root === undefined ? (spec.files ?? {}) : yield* files.snapshot
    })
    if (spec.tools !== undefined)
      yield* Trace.record({ type: "trace.annotated", key: annotations.tools, value: spec.tools })
    let tools: Toolset.Toolset<Tool.Any> = toolset(spec)
    if (spec.mcp !== undefined && spec.mcp.length > 0) {
      const mounted = yield* Effect.result(mountDeclared(spec.mcp, file))
      if (Result.isFailure(mounted)) {
        const notRun: Verdict.ConversationOutcome = { stop: "diverged", files: yield* files.snapshot, turns: 0 }
        return Verdict.make(scenario, file, variant.name, notRun, [mounted.failure])
      }
      yield* Trace.record({ type: "trace.annotated", key: annotations.mcp, value: mounted.success.mounted })
      tools = Toolset.merge(tools, mounted.success.toolset)
    }
    const gated = yield* Effect.result(gateOf(spec))
    if (Result.isFailure(gated)) {
      const notRun: Verdict.ConversationOutcome = { stop: "diverged", files: yield* files.snapshot, turns: 0 }
      return Verdict.make(scenario, file, variant.name, notRun, [gated.failure])
    }
    const gate = gated.success
    const loopOptions = {
      toolset: tools,
      messages: opening(spec),
      maxTurns: spec.maxTurns ?? Loop.defaultMaxTurns,
      breaker: spec.breaker,
      onTurn: options?.onTurn
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
      Effect.provideService(Files.Files, files),
      Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.byLocale[locale]),
      Variant.provide(variant),
      (run) => (gate === undefined ? run : Effect.provideService(run, Execute.Middleware, gate.middleware)),
      Effect.result
    )
    const offScript = gate === undefined ? [] : yield* gate.problems
    const approvalFailures = offScript.map((problem) =>
      permissionFailure(
        "the scripted approvals, each used once by the call it is for",
        `the scripted approvals: ${problem}`
      )
    )
    const finalFiles = yield* files.snapshot
    yield* Trace.record({ type: "trace.annotated", key: annotations.finalFiles, value: finalFiles })
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
    const failures: Array<Verdict.Failure> = [...approvalFailures]
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
    const outcome: Verdict.ConversationOutcome = {
      stop: result.stop,
      text: result.text,
      files: finalFiles,
      turns: result.turns.length
    }
    return Verdict.make(scenario, file, variant.name, outcome, failures)
  }).pipe(Effect.scoped)
