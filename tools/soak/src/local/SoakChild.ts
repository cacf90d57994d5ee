/**
 * The child process of the crash-safety soak: runs the soak conversation of a seed through
 * `Loop.run`, with the file tools over a durable environment (`FlatFiles`) and the journal
 * middleware over a SQLite journal, and prints one JSON line per observation:
 *
 *   {"ready":true,"calls":N}                     once loaded, before the first model call
 *   {"id":"a17","outcome":"Succeeded"}           a call that ran
 *   {"id":"a17","outcome":"Replayed","original":"Succeeded"}
 *   {"id":"a17","outcome":"Failed","failure":"OutcomeUnknown"}
 *   {"holding":"a17"}                            held in a call (`--hold-at`), waiting to be killed
 *   {"done":true,"stop":"end"}                   at the end
 *
 * and with `--commands`:
 *
 *   {"ready":true,"calls":N,"cgroup":"/sys/…"}   the folder the sandbox makes its cgroups in (null: none)
 *   {"running":"a17"}                            the call's command is about to start in the sandbox
 *   {"ran":"a17"}                                it ended (its outcome not recorded yet)
 *   {"holding":"a17","inside":true}              held inside the command (`--hold-inside`)
 *
 * The soak driver kills it with SIGKILL at random instants and starts it again on the same
 * journal and environment. Standard output is a pipe, which Node writes synchronously, so a
 * printed line is in the pipe before the next call starts.
 *
 *   node --disable-warning=ExperimentalWarning tools/soak/src/local/SoakChild.ts <journal.db> <envdir> <seed>
 *
 * Options after the seed:
 * - `--no-journal` runs the same conversation without the journal: the soak's own tests use it to
 *   see that the soak finds the appends a restart runs twice.
 * - `--hold-at K` holds in call K (from 0, in conversation order, replays included): after the
 *   call ran and before its outcome is recorded (or, for a call that does not run, before its
 *   observation is printed), the child prints `{"holding":id}` and waits to be killed. The
 *   driver passes it with every kill it plans, so the kill lands there at the latest, however
 *   late the driver reads the child's output.
 * - `--commands` plays the commands soak's conversation (`SoakConversation.withCommands`): its
 *   appends are made by the `command` tool of `@agent-harness/command`, in a bubblewrap sandbox
 *   over `<envdir>` (the root folder, which must exist), detected once per start (the child
 *   fails, saying why, where no sandbox can run: it never runs a command unsandboxed); its
 *   writes are still `write` calls, over the same folder. Hold FIFOs a killed child left there
 *   are removed first.
 * - `--hold-inside` (with `--commands` and `--hold-at K`): when call K runs a command, the child
 *   makes the call's hold FIFO before it starts; the command appends its mark, then opens the FIFO
 *   and waits on it; once it has (the child's open for writing returns), the child says
 *   `{"holding":id,"inside":true}` and waits to be killed, the command still running in its
 *   sandbox, which dies with the child (`--die-with-parent`). A call K that runs no command holds
 *   as without it.
 *
 * Exit 0 when the conversation ended, 1 on any failure (printed on stderr), 2 on bad usage.
 *
 * @since 0.1.0
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import process from "node:process"
import { CommandTool, Sandbox } from "@agent-harness/command"
import { Execute, Loop, Model, type Outcome } from "@agent-harness/executor"
import { FlatFiles, Files, FileTools } from "@agent-harness/file-tools"
import { Journal, SqliteStore } from "@agent-harness/idempotency"
import { Toolset } from "@agent-harness/tool-schema"
import { Cause, Data, Effect, Exit } from "effect"
import * as Child from "../Child.ts"
import * as SoakConversation from "./SoakConversation.ts"

/**
 * One line of the child's output.
 *
 * @since 0.1.0
 */
export type Line =
  | { readonly ready: true; readonly calls: number; readonly cgroup?: string | null }
  | {
      readonly id: string
      readonly outcome: Outcome.Outcome["_tag"]
      readonly original?: string
      readonly failure?: string
    }
  | { readonly holding: string; readonly inside?: true }
  | { readonly running: string }
  | { readonly ran: string }
  | { readonly done: true; readonly stop: Loop.StopReason }

const emit = (line: Line): Effect.Effect<void> => Child.say(line)

/**
 * The line of an observation.
 *
 * @since 0.1.0
 */
export const lineOf = (outcome: Outcome.Outcome): Line => {
  switch (outcome._tag) {
    case "Replayed":
      return { id: outcome.id, outcome: outcome._tag, original: outcome.original }
    case "Failed":
      return { id: outcome.id, outcome: outcome._tag, failure: outcome.failure._tag }
    default:
      return { id: outcome.id, outcome: outcome._tag }
  }
}

/**
 * What the child is asked to do: its arguments, read.
 *
 * @since 0.1.0
 */
export interface Args {
  /** The journal file; `undefined` runs without the journal (`--no-journal`). */
  readonly journal: string | undefined
  /** The environment's folder (the root folder with `--commands`). */
  readonly envdir: string
  readonly seed: number
  /** The call to hold in, from 0 (`--hold-at K`). */
  readonly holdAt?: number
  /** The commands soak (`--commands`). */
  readonly commands?: true
  /** Hold inside call K's command (`--hold-inside`). */
  readonly holdInside?: true
}

/**
 * A hold FIFO that could not be made or opened.
 *
 * @since 0.1.0
 */
export class HoldError extends Data.TaggedError("HoldError")<{ readonly message: string }> {}

/** Waits until the process is killed (a timer keeps it alive). */
const waitToBeKilled: Effect.Effect<never> = Effect.callback<never>(() => {
  const keepAlive = setInterval(() => {}, 60_000)
  return Effect.sync(() => clearInterval(keepAlive))
})

/** Removes the hold FIFOs a killed child left in the root folder. */
const removeHolds = (root: string): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const name of fs.readdirSync(root)) {
      if (name.startsWith(SoakConversation.holdPrefix)) fs.rmSync(nodePath.join(root, name), { force: true })
    }
  })

/** Makes a FIFO (Node has no mkfifo of its own). */
const makeFifo = (path: string): Effect.Effect<void, HoldError> =>
  Effect.suspend(() => {
    const made = spawnSync("mkfifo", ["-m", "600", path], { encoding: "utf8" })
    return made.status === 0
      ? Effect.void
      : Effect.fail(
          new HoldError({
            message: `mkfifo ${path}: ${made.error?.message ?? (made.stderr.trim() || `exit ${made.status}`)}`
          })
        )
  })

/**
 * Holds inside the command of call `id`: opens its FIFO for writing, which returns once the
 * command has opened it (it has appended its mark), says so, and waits to be killed.
 */
const holdInside = (fifo: string, id: string): Effect.Effect<never, HoldError> =>
  Effect.tryPromise({
    try: () => fs.promises.open(fifo, "w"),
    catch: (error) =>
      new HoldError({ message: `open ${fifo}: ${error instanceof Error ? error.message : String(error)}` })
  }).pipe(Effect.andThen(emit({ holding: id, inside: true })), Effect.andThen(waitToBeKilled))

/**
 * The journaled conversation of a seed over a journal file and an environment directory; with
 * `holdAt`, it holds in that call (from 0) until it is killed. With `commands`, its appends are
 * commands run in a sandbox over the environment directory (see the module's documentation).
 *
 * @since 0.1.0
 */
export const program = (args: Args) =>
  Effect.gen(function* () {
    const { journal, envdir, holdAt } = args
    const plain = SoakConversation.conversation(args.seed)
    const journaled: Execute.Middleware =
      journal === undefined ? (_call, _tool, run) => run : Journal.middleware(yield* SqliteStore.make(journal))
    const files = yield* FlatFiles.make(envdir)
    const sandbox =
      args.commands === true ? yield* Effect.andThen(removeHolds(envdir), Sandbox.detect({ root: envdir })) : undefined
    const conversation: SoakConversation.Conversation<SoakConversation.Call | SoakConversation.CommandCall> =
      sandbox === undefined ? plain : SoakConversation.withCommands(plain, sandbox.policy.root)
    const toolset =
      sandbox === undefined
        ? FileTools.english
        : Toolset.merge(FileTools.english, CommandTool.make({ sandbox, locale: "en" }))
    // A command says when it starts and when it ends, so the driver knows where a kill landed.
    const said = <R>(
      id: string,
      name: string,
      run: Effect.Effect<Outcome.Outcome, never, R>
    ): Effect.Effect<Outcome.Outcome, never, R> =>
      name === "command"
        ? Effect.andThen(
            emit({ running: id }),
            Effect.tap(run, () => emit({ ran: id }))
          )
        : run
    // The journal, then a line for what the model is shown: printed only once the journal has
    // recorded the outcome. In the call to hold in, the child stops once the call has run
    // (before the journal records its outcome), or once the journal answered without running it;
    // with `holdInside`, inside the call's command while it runs.
    let index = 0
    const observed: Execute.Middleware = (call, tool, run) =>
      Effect.suspend(() => {
        const here = index
        index += 1
        const running = said(call.id, call.name, run)
        if (here !== holdAt) return Effect.tap(journaled(call, tool, running), emitOutcome)
        const ranThenHold = Effect.andThen(running, Child.hold(call.id))
        const held =
          sandbox !== undefined && args.holdInside === true && call.name === "command"
            ? Effect.suspend(() => {
                const fifo = SoakConversation.holdFifo(sandbox.policy.root, call.id)
                return Effect.andThen(makeFifo(fifo), Effect.raceFirst(ranThenHold, holdInside(fifo, call.id)))
              }).pipe(Effect.orDie)
            : ranThenHold
        return Effect.andThen(journaled(call, tool, held), Child.hold(call.id))
      })
    yield* emit({
      ready: true,
      calls: SoakConversation.calls(conversation).length,
      ...(sandbox === undefined
        ? {}
        : { cgroup: sandbox.processLimit._tag === "Cgroup" ? sandbox.processLimit.parent : null })
    })
    const result = yield* Loop.run({
      toolset,
      messages: SoakConversation.opening,
      maxTurns: conversation.turns.length + 1
    }).pipe(
      Effect.provideService(Files.Files, files),
      Effect.provideService(Model.Model, SoakConversation.model(conversation)),
      Effect.provideService(Execute.Middleware, observed)
    )
    yield* emit({ done: true, stop: result.stop })
  }).pipe(Effect.scoped)

const emitOutcome = (outcome: Outcome.Outcome) => emit(lineOf(outcome))

/**
 * The child's arguments: `<journal.db> <envdir> <seed>`, then `--no-journal`, `--hold-at K`,
 * `--commands` and `--hold-inside` (only with the two before it) in any order, each at most
 * once; or `undefined` when they are not that.
 *
 * @since 0.1.0
 */
export const parseArgs = (args: ReadonlyArray<string>): Args | undefined => {
  const [journal, envdir, seedText, ...options] = args
  const seed = Number(seedText)
  if (journal === undefined || envdir === undefined || !Number.isSafeInteger(seed)) return undefined
  let withJournal = true
  let holdAt: number | undefined
  let commands = false
  let holdInside = false
  for (let i = 0; i < options.length; i++) {
    const option = options[i]
    if (option === "--no-journal" && withJournal) withJournal = false
    else if (option === "--hold-at" && holdAt === undefined) {
      const k = Number(options[++i])
      if (!Number.isSafeInteger(k) || k < 0) return undefined
      holdAt = k
    } else if (option === "--commands" && !commands) commands = true
    else if (option === "--hold-inside" && !holdInside) holdInside = true
    else return undefined
  }
  if (holdInside && (!commands || holdAt === undefined)) return undefined
  return {
    journal: withJournal ? journal : undefined,
    envdir,
    seed,
    ...(holdAt === undefined ? {} : { holdAt }),
    ...(commands ? { commands: true } : {}),
    ...(holdInside ? { holdInside: true } : {})
  }
}

const main = async (args: ReadonlyArray<string>): Promise<number> => {
  const parsed = parseArgs(args)
  if (parsed === undefined) {
    process.stderr.write(
      "usage: SoakChild.ts <journal.db> <envdir> <seed> [--no-journal] [--hold-at K] [--commands [--hold-inside]]\n"
    )
    return 2
  }
  const exit = await Effect.runPromiseExit(program(parsed))
  if (Exit.isSuccess(exit)) return 0
  process.stderr.write(`soak child: ${Cause.pretty(exit.cause)}\n`)
  return 1
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2))
}
