/**
 * The `soak` command line: the options `harness soak` had, the local soak by default (its
 * commands mode with `--commands`), the Postgres soak with `--engine postgres` (or any of its
 * flags, `--approvals` included, which it refuses under `--engine local`; `--commands` is refused
 * with any of them). Each soak's module loads only when it runs.
 *
 * @since 0.1.0
 */
import { Console, Effect, Option } from "effect"
import { type CliError, Command, Flag } from "effect/cli"
import * as ExitCode from "./ExitCode.ts"

/** Exit 2 after saying why on stderr. */
const refuse = (message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(message), Effect.fail(ExitCode.invalid))

/**
 * The `soak` command.
 *
 * @since 0.1.0
 */
export const soak = Command.make(
  "soak",
  {
    runs: Flag.Int("runs").pipe(Flag.withDefault(100), Flag.withDescription("how many runs (fresh journal each)")),
    json: Flag.Boolean("json").pipe(
      Flag.withDefault(false),
      Flag.withDescription("no progress lines; the last line is the summary as JSON")
    ),
    seed: Flag.Int("seed").pipe(Flag.withDefault(1), Flag.withDescription("run i plays the conversation of seed + i")),
    kills: Flag.Int("kills").pipe(Flag.optional, Flag.withDescription("kills per run (default: 0 to 6 at random)")),
    engine: Flag.Literals("engine", ["local", "postgres"]).pipe(
      Flag.withDefault("local"),
      Flag.withDescription(
        "where sessions run: local (a journaled conversation in a child process) or postgres (runner processes on effect/workflow, state in Postgres)"
      )
    ),
    runners: Flag.Int("runners").pipe(
      Flag.optional,
      Flag.withDescription("runner processes of --engine postgres (default 2), killed at random while sessions run")
    ),
    databaseUrl: Flag.String("database-url").pipe(
      Flag.optional,
      Flag.withDescription("the Postgres database of --engine postgres (default: $DATABASE_URL)")
    ),
    approvals: Flag.Boolean("approvals").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "with --engine postgres: conversations behind a policy that asks about appends to log-1.txt, answered (approve or deny, by the seed) by an answering process also killed at random"
      )
    ),
    commands: Flag.Boolean("commands").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "the local soak's appends made by the command tool: a sandboxed sh (bubblewrap) appends each mark, killed at random inside commands too; exit 2 where no sandbox can run"
      )
    )
  },
  ({ runs, json, seed, kills, engine, runners, databaseUrl, approvals, commands }) => {
    const postgres = engine === "postgres" || Option.isSome(databaseUrl) || Option.isSome(runners) || approvals
    if (commands && postgres) {
      return refuse(
        "--commands is for the local soak: drop --commands, or drop --engine postgres and its flags (--runners, --database-url, --approvals)"
      )
    }
    return postgres
      ? Effect.flatMap(
          Effect.promise(() => import("./postgres/PgSoakCommand.ts")),
          (m) =>
            m.soak({
              runs,
              json,
              seed,
              engine,
              kills: Option.getOrUndefined(kills),
              runners: Option.getOrUndefined(runners),
              databaseUrl: Option.getOrUndefined(databaseUrl),
              approvals
            })
        )
      : Effect.flatMap(
          Effect.promise(() => import("./local/SoakCommand.ts")),
          (m) => m.soak({ runs, json, seed, kills: Option.getOrUndefined(kills), commands })
        )
  }
).pipe(
  Command.withDescription(
    "Crash safety: SIGKILL a journaled conversation (local, its appends sandboxed commands with --commands) or runner processes (postgres) at random; exit 0 only if no append ran twice"
  )
)

/**
 * Runs the soak on the given arguments (without the program name) and gives the exit code: 0
 * nothing ran twice (and `--help`), 1 the soak found something wrong, 2 bad usage or an unusable
 * database. effect/cli has already printed usage errors with the help text.
 *
 * @since 0.1.0
 */
export const main = (args: ReadonlyArray<string>) =>
  Command.runWith(soak, { version: "0.1.0" })(args).pipe(
    Effect.as(0),
    Effect.catchTags({
      ExitCode: (e: ExitCode.ExitCode) => Effect.succeed(e.code),
      ShowHelp: (help: CliError.ShowHelp) => Effect.succeed(help.errors.length === 0 ? 0 : 2)
    }),
    Effect.catch((error: CliError.CliError) => Effect.as(Console.error(error.message), 2))
  )
