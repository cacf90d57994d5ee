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
 * The soak driver kills it with SIGKILL at random instants and starts it again on the same
 * journal and environment. Standard output is a pipe, which Node writes synchronously, so a
 * printed line is in the pipe before the next call starts.
 *
 *   node --disable-warning=ExperimentalWarning apps/cli/src/SoakChild.ts <journal.db> <envdir> <seed>
 *
 * Options after the seed:
 * - `--no-journal` runs the same conversation without the journal: the soak's own tests use it to
 *   see that the soak finds the appends a restart runs twice.
 * - `--hold-at K` holds in call K (from 0, in conversation order, replays included): after the
 *   call ran and before its outcome is recorded (or, for a call that does not run, before its
 *   observation is printed), the child prints `{"holding":id}` and waits to be killed. The
 *   driver passes it with every kill it plans, so the kill lands there at the latest, however
 *   late the driver reads the child's output.
 *
 * Exit 0 when the conversation ended, 1 on any failure (printed on stderr), 2 on bad usage.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Execute, Loop, Model, type Outcome } from "@agent-harness/executor"
import { FlatFiles, Files, FileTools } from "@agent-harness/file-tools"
import { Journal, SqliteStore } from "@agent-harness/idempotency"
import { Cause, Effect, Exit } from "effect"
import * as Child from "../Child.ts"
import * as SoakConversation from "./SoakConversation.ts"

/**
 * One line of the child's output.
 *
 * @since 0.1.0
 */
export type Line =
  | { readonly ready: true; readonly calls: number }
  | {
      readonly id: string
      readonly outcome: Outcome.Outcome["_tag"]
      readonly original?: string
      readonly failure?: string
    }
  | { readonly holding: string }
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
 * The journaled conversation of a seed over a journal file and an environment directory; with
 * `holdAt`, it holds in that call (from 0) until it is killed.
 *
 * @since 0.1.0
 */
export const program = (journal: string | undefined, envdir: string, seed: number, holdAt?: number | undefined) =>
  Effect.gen(function* () {
    const conversation = SoakConversation.conversation(seed)
    const journaled: Execute.Middleware =
      journal === undefined ? (_call, _tool, run) => run : Journal.middleware(yield* SqliteStore.make(journal))
    const files = yield* FlatFiles.make(envdir)
    // The journal, then a line for what the model is shown: printed only once the journal has
    // recorded the outcome. In the call to hold in, the child stops once the call has run
    // (before the journal records its outcome), or once the journal answered without running it.
    let index = 0
    const observed: Execute.Middleware = (call, tool, run) =>
      Effect.suspend(() => {
        const here = index
        index += 1
        if (here !== holdAt) return Effect.tap(journaled(call, tool, run), emitOutcome)
        return Effect.andThen(journaled(call, tool, Effect.andThen(run, Child.hold(call.id))), Child.hold(call.id))
      })
    yield* emit({ ready: true, calls: SoakConversation.calls(conversation).length })
    const result = yield* Loop.run({
      toolset: FileTools.english,
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
 * The child's arguments: `<journal.db> <envdir> <seed> [--no-journal] [--hold-at K]`, or
 * `undefined` when they are not that.
 *
 * @since 0.1.0
 */
export const parseArgs = (
  args: ReadonlyArray<string>
):
  | { readonly journal: string | undefined; readonly envdir: string; readonly seed: number; readonly holdAt?: number }
  | undefined => {
  const [journal, envdir, seedText, ...options] = args
  const seed = Number(seedText)
  if (journal === undefined || envdir === undefined || !Number.isSafeInteger(seed)) return undefined
  let withJournal = true
  let holdAt: number | undefined
  for (let i = 0; i < options.length; i++) {
    const option = options[i]
    if (option === "--no-journal" && withJournal) withJournal = false
    else if (option === "--hold-at" && holdAt === undefined) {
      const k = Number(options[++i])
      if (!Number.isSafeInteger(k) || k < 0) return undefined
      holdAt = k
    } else return undefined
  }
  return { journal: withJournal ? journal : undefined, envdir, seed, ...(holdAt === undefined ? {} : { holdAt }) }
}

const main = async (args: ReadonlyArray<string>): Promise<number> => {
  const parsed = parseArgs(args)
  if (parsed === undefined) {
    process.stderr.write("usage: SoakChild.ts <journal.db> <envdir> <seed> [--no-journal] [--hold-at K]\n")
    return 2
  }
  const exit = await Effect.runPromiseExit(program(parsed.journal, parsed.envdir, parsed.seed, parsed.holdAt))
  if (Exit.isSuccess(exit)) return 0
  process.stderr.write(`soak child: ${Cause.pretty(exit.cause)}\n`)
  return 1
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2))
}
