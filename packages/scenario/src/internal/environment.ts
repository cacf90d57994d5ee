/**
 * The environment a conversation or a live case runs in, made afresh for each run: its files (a
 * fresh copy of its `root` folder, or its inline `files` in memory), its tools (the file tools
 * of its locale, its scripted tools, its sandboxed commands over the copy, its mounted MCP
 * servers) and the gate of its `policy`, each recorded on the trace as `Capture` reads it; then,
 * after the run, what the gate saw and the final files.
 */
import { Execute, Trace } from "@agent-harness/executor"
import { Files, FileTools } from "@agent-harness/file-tools"
import { MessageCatalog, type Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, Option, Result, type Scope } from "effect"
import * as Commands from "../Commands.ts"
import * as Mounter from "../Mounter.ts"
import * as Permissions from "../Permissions.ts"
import * as Roots from "../Roots.ts"
import type * as ScenarioFile from "../ScenarioFile.ts"
import * as ScriptedTools from "../ScriptedTools.ts"
import * as Variant from "../Variant.ts"
import type * as Verdict from "../Verdict.ts"

/** The trace annotations of a run (`Conversation.annotations` is this). */
export const annotations = {
  variant: "variant",
  locale: "locale",
  files: "files",
  finalFiles: "files.final",
  tools: "tools",
  mcp: "mcp",
  policy: "policy",
  approvals: "approvals",
  untrustedOutput: "untrusted_output",
  compaction: "compaction",
  commands: "commands"
} as const

/** The fields of a file that make its environment (a conversation's or a live case's). */
export type Spec = Pick<
  ScenarioFile.ConversationFile,
  "locale" | "files" | "root" | "tools" | "mcp" | "policy" | "approvals" | "untrustedOutput" | "commands"
>

/**
 * The tools of a file: the file tools of its locale, and its scripted tools (which replace file
 * tools of the same name). Counters start afresh on each call.
 */
export const toolset = (
  file: Pick<Spec, "locale" | "tools">
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
export const permissionFailure = (expected: string, problem: string): Verdict.Failure => ({
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

/** A failure to make the declared command tools (nothing of the script ran). */
const commandsFailure = (problem: string): Verdict.Failure => ({
  kind: "commands",
  expected: "the declared command tool, sandboxed over the root folder's copy",
  seen: problem,
  message: problem
})

/**
 * The files the run works on: a fresh copy of the file's `root` folder (made by the `Roots`
 * service, removed when the scope closes, with its path when it is a real folder), or its inline
 * `files` in memory. Fails when the file declares a root and there is no `Roots`, or the copy
 * cannot be made.
 */
const filesOf = (spec: Spec, file: string): Effect.Effect<Roots.Opened, Verdict.Failure, Scope.Scope> =>
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
const gateOf = (spec: Spec): Effect.Effect<Permissions.Gate | undefined, Verdict.Failure> =>
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
 * The command tools the file declares (`commands`), made by the `Commands` service over the
 * real folder of the root's copy and recorded on the trace as they run (`Commands.Settings`);
 * `undefined` when it declares none. Fails when there is no `Commands`, the copy is no real
 * folder, the sandbox cannot be made, or a command tool has the name of a scripted tool.
 */
const commandsOf = (
  spec: Spec,
  files: Roots.Opened,
  locale: "en" | "es"
): Effect.Effect<Commands.Offered | undefined, Verdict.Failure> =>
  Effect.gen(function* () {
    if (spec.commands === undefined) return undefined
    const commands = yield* Effect.serviceOption(Commands.Commands)
    if (Option.isNone(commands)) return yield* Effect.fail(commandsFailure(`commands: ${Commands.missing}`))
    const folder = files.folder
    if (folder === undefined) {
      return yield* Effect.fail(
        commandsFailure(
          "commands: the root folder's copy is not a real folder here (the Roots service gives no path), and commands run in one: provide the Roots of @agent-harness/scenario/TreeRoots"
        )
      )
    }
    const offered = yield* Effect.mapError(
      commands.value.tools(Commands.declared(spec.commands), folder, locale),
      (error) => commandsFailure(error.message)
    )
    for (const tool of offered.toolset.tools) {
      if (spec.tools !== undefined && Object.hasOwn(spec.tools, tool.name)) {
        return yield* Effect.fail(
          commandsFailure(
            `commands: the command tool '${tool.name}' has the name of the scripted tool tools.${tool.name}: rename the scripted tool`
          )
        )
      }
    }
    yield* Trace.record({ type: "trace.annotated", key: annotations.commands, value: Commands.wire(offered.settings) })
    return offered
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

/** What a run works in: its files, its tools, its gate (none without a policy), its locale. */
export interface Environment {
  /** The files the file tools work on. */
  readonly files: Files.FilesShape
  /** Every tool the model may call. */
  readonly toolset: Toolset.Toolset<Tool.Any>
  /** The gate of the file's policy, or `undefined` when it declares none. */
  readonly gate: Permissions.Gate | undefined
  /** The file tools' and the harness's messages' language. */
  readonly locale: "en" | "es"
}

/** Why an environment could not be made (nothing ran), and the files it had by then. */
export interface NotOpened {
  /** The failure, as a verdict says it. */
  readonly failure: Verdict.Failure
  /** The files when it failed (none when the root could not be copied). */
  readonly files: Readonly<Record<string, string>>
}

/**
 * Makes a fresh environment for one run, for the length of the scope: the files (a `root`
 * copy, or the inline files), recorded on the trace with the variant, the locale and the
 * scripted tools; the command tools made over the copy; the MCP servers mounted; the gate made.
 * The tools in that order: the file tools of the locale, the scripted tools, the commands, the
 * MCP servers'. Fails with what could not be made.
 */
export const open = (spec: Spec, file: string, variant: string): Effect.Effect<Environment, NotOpened, Scope.Scope> =>
  Effect.gen(function* () {
    const locale = spec.locale ?? "en"
    const files = yield* Effect.mapError(filesOf(spec, file), (failure): NotOpened => ({ failure, files: {} }))
    const notOpened = (failure: Verdict.Failure) =>
      Effect.flatMap(files.snapshot, (snapshot) => Effect.fail<NotOpened>({ failure, files: snapshot }))
    // What a trace needs besides the loop's own events to be replayed (`harness capture`).
    yield* Trace.record({ type: "trace.annotated", key: annotations.variant, value: variant })
    yield* Trace.record({ type: "trace.annotated", key: annotations.locale, value: locale })
    yield* Trace.record({
      type: "trace.annotated",
      key: annotations.files,
      value: spec.root === undefined ? (spec.files ?? {}) : yield* files.snapshot
    })
    if (spec.tools !== undefined)
      yield* Trace.record({ type: "trace.annotated", key: annotations.tools, value: spec.tools })
    let tools: Toolset.Toolset<Tool.Any> = toolset(spec)
    const commands = yield* Effect.result(commandsOf(spec, files, locale))
    if (Result.isFailure(commands)) return yield* notOpened(commands.failure)
    if (commands.success !== undefined) tools = Toolset.merge(tools, commands.success.toolset)
    if (spec.mcp !== undefined && spec.mcp.length > 0) {
      const mounted = yield* Effect.result(mountDeclared(spec.mcp, file))
      if (Result.isFailure(mounted)) return yield* notOpened(mounted.failure)
      yield* Trace.record({ type: "trace.annotated", key: annotations.mcp, value: mounted.success.mounted })
      tools = Toolset.merge(tools, mounted.success.toolset)
    }
    const gated = yield* Effect.result(gateOf(spec))
    if (Result.isFailure(gated)) return yield* notOpened(gated.failure)
    return { files, toolset: tools, gate: gated.success, locale }
  })

/**
 * Runs `run` in the environment: its files, the catalogue of its locale, the variant's response
 * parser, and every call through its gate.
 */
export const provide =
  (environment: Environment, variant: Variant.Variant) =>
  <A, E, R>(run: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Files.Files>> => {
    const provided = run.pipe(
      Effect.provideService(Files.Files, environment.files),
      Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.byLocale[environment.locale]),
      Variant.provide(variant)
    )
    const gate = environment.gate
    return gate === undefined ? provided : Effect.provideService(provided, Execute.Middleware, gate.middleware)
  }

/**
 * What is left to judge after the run: a `permission` failure for each way the run left its
 * scripted approvals, and the final files (recorded on the trace).
 */
export const close = (
  environment: Environment
): Effect.Effect<{
  readonly approvalFailures: ReadonlyArray<Verdict.Failure>
  readonly files: Readonly<Record<string, string>>
}> =>
  Effect.gen(function* () {
    const offScript = environment.gate === undefined ? [] : yield* environment.gate.problems
    const approvalFailures = offScript.map((problem) =>
      permissionFailure(
        "the scripted approvals, each used once by the call it is for",
        `the scripted approvals: ${problem}`
      )
    )
    const files = yield* environment.files.snapshot
    yield* Trace.record({ type: "trace.annotated", key: annotations.finalFiles, value: files })
    return { approvalFailures, files }
  })
