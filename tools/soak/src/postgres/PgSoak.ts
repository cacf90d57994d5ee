/**
 * The crash-safety soak on the Postgres engine: fault injection across processes. The driver
 * creates a fresh database on the server it is given, starts `runners` runner processes
 * (`PgSoakRunner.ts`, effect/cluster socket runners sharing that database), and runs `runs`
 * durable sessions on them — odd runs plan sessions, even runs conversations, each the soak
 * conversation of its seed (42 to 198 calls, three in four appends) in its own folder of a
 * durable environment — a few at a time. Meanwhile it kills a random runner with SIGKILL at
 * random instants and starts it again on the same port: the sessions it was running are
 * taken over (by it, restarted, or by another runner) and resumed. Then it checks:
 *
 * - no append ran twice: each append's mark (`[a17]`) is counted in its run's folder, and more
 *   than one is `duplicated`; no runner ran an append whose result was recorded (or reported
 *   unknown) again;
 * - every call the journal holds as started and never finished was reported outcome unknown in
 *   its session's result (`unknown`), and every call reported unknown is such a call; a finished
 *   append's mark is in the files once, an unknown one's at most once;
 * - every call of every run was answered; nothing was refused or left unexecuted;
 * - `replayed` counts the replayed observations over every runner's life: calls answered from
 *   the record when a session was taken over, not run again;
 * - at least one runner was killed while sessions ran.
 *
 * The database is dropped at the end (kept, with the folders, when something went wrong). A
 * database that goes away while the soak runs (`Database.ConnectionLost`, seen by the driver's
 * engine) ends the soak with that error at once, nothing judged: its runners are killed and its
 * folders removed (the database, if the server comes back, is left to drop).
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as nodePath from "node:path"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { Database, type DurableLoop, type DurableSession, Engine, PgStore } from "@agent-harness/durable"
import type { Journal } from "@agent-harness/idempotency"
import type { SessionResult } from "@agent-harness/planner"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { Clock, Data, Deferred, Effect, Fiber, Predicate, Random, Ref, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import type { WorkflowEngine } from "effect/workflow"
import * as PgSoakWorkflows from "./PgSoakWorkflows.ts"
import type * as PgSoakRunner from "./PgSoakRunner.ts"
import * as Bundle from "../Bundle.ts"
import * as Soak from "../local/Soak.ts"

/**
 * Options of a Postgres soak.
 *
 * @since 0.1.0
 */
export interface Options {
  readonly runs: number
  /** A database URL on the server to use: the soak creates its own database there. */
  readonly url: string
  /** Runner processes; default 2. */
  readonly runners?: number | undefined
  /** Run `i` plays the conversation of seed `seed + i - 1`; default 1. */
  readonly seed?: number | undefined
  /** Sessions running at once; default 8. */
  readonly concurrency?: number | undefined
  /** Milliseconds between kills, drawn uniformly from this range; default 1,000 to 4,000. */
  readonly killEvery?: { readonly min: number; readonly max: number } | undefined
  /**
   * Start with every runner holding in the next append it runs (after it appended, before its
   * outcome is recorded) and kill each there, then do the same before every other kill: those
   * kills land inside a call that ran, whatever the timing; the others land at a random instant
   * (default true).
   */
  readonly holds?: boolean | undefined
  /**
   * Run the runners without the journal (default false): the soak's own check, which must then
   * find appends run twice.
   */
  readonly withoutJournal?: boolean | undefined
  /** Bundle the runner (default true): it starts several times faster than from the sources. */
  readonly bundle?: boolean | undefined
  /** Keep the database and the folders when something went wrong (default true). */
  readonly keepFailed?: boolean | undefined
  /** Called after each run. */
  readonly onRun?: ((report: RunReport) => Effect.Effect<void>) | undefined
}

/**
 * What one run found.
 *
 * @since 0.1.0
 */
export interface RunReport {
  readonly run: number
  readonly seed: number
  readonly kind: PgSoakWorkflows.Run["kind"]
  readonly calls: number
  /** Calls its result reports outcome unknown. */
  readonly unknown: number
  /** Replayed observations of its calls so far, over every runner's life. */
  readonly replayed: number
  readonly millis: number
}

/**
 * The soak's figures: the local soak's, and how many runners shared the database.
 *
 * @since 0.1.0
 */
export interface Summary extends Soak.Summary {
  readonly runners: number
}

/**
 * The soak could not be set up: no database could be created, a runner would not start.
 *
 * @since 0.1.0
 */
export class SetupError extends Data.TaggedError("SetupError")<{ readonly message: string }> {}

/**
 * The runner's entry point, next to this file.
 *
 * @since 0.1.0
 */
export const runnerSource = fileURLToPath(new URL("./PgSoakRunner.ts", import.meta.url))

/** A runner that has not said it is ready by then is stuck. */
const readyMillis = 120_000

/** A session that has not finished by then is stuck. */
const sessionMillis = 600_000

/** The URL of another database on the same server. */
const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Runs one statement on the server of `url`. */
const execute = (url: string, statement: string, what: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(statement)
  }).pipe(
    Effect.provide(Database.layer(url, { maxConnections: 1 })),
    Effect.catchTag("SqlError", (error) =>
      Effect.fail(new SetupError({ message: `${what} on ${Database.redact(url)}: ${Database.sqlProblem(error)}` }))
    )
  )

/** A free TCP port on 127.0.0.1. */
const freePort: Effect.Effect<number, SetupError> = Effect.callback<number, SetupError>((resume) => {
  const server = net.createServer()
  server.once("error", (error) => resume(Effect.fail(new SetupError({ message: `no free port: ${error.message}` }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A runner process. */
interface Runner {
  readonly port: number
  readonly process: ChildProcess
  /** Resolves when the process has exited. */
  readonly closed: Deferred.Deferred<void>
  /** Resolves when it says it holds in an append. */
  readonly holding: Deferred.Deferred<void>
}

/** What the runners printed about outcomes, over every life of every runner. */
type Lines = Array<PgSoakRunner.OutcomeLine>

const outcomeTags: ReadonlyArray<string> = ["NotExecuted", "Refused", "Failed", "Succeeded", "Replayed"]

const isOutcomeTag = (tag: string): tag is PgSoakRunner.OutcomeLine["outcome"] => outcomeTags.includes(tag)

/**
 * Starts a runner and waits until it says it is ready (or fails saying why it is not). The
 * process is killed with the scope.
 */
const startRunner = (
  entry: string,
  args: ReadonlyArray<string>,
  port: number,
  lines: Lines,
  problems: Array<string>
): Effect.Effect<Runner, SetupError, Scope.Scope> =>
  Effect.gen(function* () {
    const ready = yield* Deferred.make<void, SetupError>()
    const closed = yield* Deferred.make<void>()
    const holding = yield* Deferred.make<void>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, ["--disable-warning=ExperimentalWarning", entry, ...args], {
          stdio: ["pipe", "pipe", "pipe"]
        })
      ),
      (child) =>
        Effect.andThen(
          Effect.sync(() => {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
          }),
          Deferred.await(closed)
        )
    )
    let stdout = ""
    let stderr = ""
    const onLine = (text: string) => {
      let line: unknown
      try {
        line = JSON.parse(text)
      } catch {
        problems.push(`runner :${port} printed a line that is not JSON: ${text.slice(0, 200)}`)
        return
      }
      if (Predicate.isObject(line) && line.ready === true) {
        Deferred.doneUnsafe(ready, Effect.void)
      } else if (Predicate.isObject(line) && typeof line.holding === "string") {
        Deferred.doneUnsafe(holding, Effect.void)
      } else if (
        Predicate.isObject(line) &&
        typeof line.session === "string" &&
        typeof line.id === "string" &&
        typeof line.outcome === "string" &&
        isOutcomeTag(line.outcome)
      ) {
        lines.push({
          session: line.session,
          id: line.id,
          outcome: line.outcome,
          ...(typeof line.original === "string" ? { original: line.original } : {}),
          ...(typeof line.failure === "string" ? { failure: line.failure } : {})
        })
      } else {
        problems.push(`runner :${port} printed ${text.slice(0, 200)}`)
      }
    }
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      for (let end = stdout.indexOf("\n"); end >= 0; end = stdout.indexOf("\n")) {
        onLine(stdout.slice(0, end))
        stdout = stdout.slice(end + 1)
      }
    })
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      // The engine's logs: only the end is kept, to say why a runner did not start.
      stderr = (stderr + chunk).slice(-8000)
    })
    // A runner killed while the driver writes to it: nothing to say.
    child.stdin?.on("error", () => {})
    child.on("close", (code, signal) => {
      Deferred.doneUnsafe(
        ready,
        Effect.fail(
          new SetupError({
            message: `runner :${port} exited with ${signal ?? `code ${code}`} before it was ready: ${stderr.trim().slice(-800)}`
          })
        )
      )
      Deferred.doneUnsafe(closed, Effect.void)
    })
    yield* Deferred.await(ready).pipe(
      Effect.timeoutOrElse({
        duration: readyMillis,
        orElse: () =>
          Effect.fail(new SetupError({ message: `runner :${port} was not ready after ${readyMillis / 1000} s` }))
      })
    )
    return { port, process: child, closed, holding }
  })

/** How long a runner asked to hold may take to reach an append before it is killed anyway. */
const holdMillis = 15_000

/**
 * Asks a runner to hold in its next append and waits until it does (or `holdMillis`): whether
 * it holds.
 */
const holdIn = (runner: Runner): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    yield* Effect.sync(() => runner.process.stdin?.write("hold\n"))
    return yield* Deferred.await(runner.holding).pipe(
      Effect.as(true),
      Effect.timeoutOrElse({ duration: holdMillis, orElse: () => Effect.succeed(false) })
    )
  })

/** Kills a runner with SIGKILL and waits for it to exit: whether it was running. */
const kill = (runner: Runner): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const running = runner.process.exitCode === null && runner.process.signalCode === null
    if (running) runner.process.kill("SIGKILL")
    yield* Deferred.await(runner.closed)
    return running
  })

/** What a run's result says of each of its calls: the observation's text and error flag. */
interface Observed {
  readonly content: string
  readonly isError: boolean
}

const observedOfSession = (result: SessionResult.SessionResult): ReadonlyMap<string, Observed> =>
  new Map(
    result.history.map((step) => [
      `${step.tool_name === "append" ? "a" : "w"}${step.id}`,
      { content: step.result ?? step.error ?? "", isError: step.error !== null && step.error !== undefined }
    ])
  )

const observedOfConversation = (result: DurableLoop.Result): ReadonlyMap<string, Observed> => {
  const observed = new Map<string, Observed>()
  for (const message of result.messages) {
    if (message.role !== "user" || typeof message.content === "string") continue
    for (const block of message.content) {
      if (block.type === "tool_result") {
        observed.set(block.tool_use_id, { content: block.content, isError: block.is_error })
      }
    }
  }
  return observed
}

/** The soak's call id of a journal entry of a run, or `undefined` when it is another run's. */
const callIdOfEntry = (run: PgSoakWorkflows.Run, entry: Journal.Entry): string | undefined => {
  const prefix = `${run.id}/`
  if (!entry.id.startsWith(prefix)) return undefined
  const rest = entry.id.slice(prefix.length)
  const step = /^step-\d+-(\d+)$/.exec(rest)
  return step === null ? rest : `${entry.name === "append" ? "a" : "w"}${step[1]}`
}

/** What one run ended with. */
interface Ended {
  readonly run: PgSoakWorkflows.Run
  readonly observed: ReadonlyMap<string, Observed> | undefined
  readonly millis: number
  readonly problem: string | undefined
}

/** Checks one run once every runner has stopped; its violations, and its figures. */
const check = (
  ended: Ended,
  root: string,
  entries: ReadonlyArray<Journal.Entry>,
  lines: ReadonlyArray<PgSoakRunner.OutcomeLine>
) =>
  Effect.gen(function* () {
    const { run } = ended
    const violations: Array<string> = []
    const violation = (text: string) => violations.push(`run ${run.run} (${run.kind}, seed ${run.seed}): ${text}`)
    if (ended.problem !== undefined) violation(ended.problem)
    const calls = PgSoakWorkflows.turns(run.run, run.seed).flat()
    const unknownText = MessageCatalog.english.outcomeUnknown
    const observed = ended.observed ?? new Map<string, Observed>()
    const unknown = new Set([...observed].filter(([, o]) => o.content === unknownText).map(([id]) => id))
    if (ended.observed !== undefined) {
      const missing = calls.filter((call) => !observed.has(call.id)).map((call) => call.id)
      if (missing.length > 0) violation(`its result does not answer ${missing.join(", ")}`)
    }
    const counts = yield* Effect.orDie(Soak.countMarks(nodePath.join(root, PgSoakWorkflows.folderOf(run.run))))
    let duplicated = 0
    for (const [id, count] of counts) {
      if (count > 1) {
        duplicated += 1
        violation(`${id} ran ${count} times: its mark is in the files ${count} times`)
      }
    }
    const journal = new Map<string, Journal.Entry>()
    for (const entry of entries) {
      const id = callIdOfEntry(run, entry)
      if (id !== undefined) journal.set(id, entry)
    }
    const unfinished = [...journal].filter(([, e]) => e.state === "started").map(([id]) => id)
    for (const id of unfinished) {
      if (!unknown.has(id))
        violation(`${id} is started in the journal and its result does not report it outcome unknown`)
    }
    for (const id of unknown) {
      if (journal.get(id)?.state !== "started") {
        violation(`${id} is reported outcome unknown and the journal does not hold it as started`)
      }
      if ((counts.get(id) ?? 0) > 1) violation(`${id} is reported outcome unknown and ran more than once`)
    }
    for (const [id, entry] of journal) {
      if (entry.state === "done" && entry.name === "append" && (counts.get(id) ?? 0) !== 1) {
        violation(`${id} finished, and its mark is in the files ${counts.get(id) ?? 0} times`)
      }
    }
    // What the runners said, life after life: an append that ran, or was reported unknown, never runs again.
    const mine = lines.filter((line) => line.session === run.id)
    const settled = new Map<string, string>()
    let replayed = 0
    for (const line of mine) {
      if (line.outcome === "Replayed") {
        replayed += 1
        continue
      }
      if (line.outcome === "NotExecuted" || line.outcome === "Refused") {
        violation(`${line.id} was ${line.outcome} on a runner`)
        continue
      }
      const now = line.failure === "OutcomeUnknown" ? "reported outcome unknown" : "ran"
      const before = settled.get(line.id)
      if (before !== undefined && line.id.startsWith("a")) violation(`${line.id} ${before}, then ${now} again`)
      settled.set(line.id, now)
    }
    return {
      violations,
      duplicated,
      unknown: unknown.size,
      unfinished: unfinished.length,
      replayed,
      calls: calls.length
    }
  })

/**
 * Runs the Postgres soak.
 *
 * @since 0.1.0
 */
export const run = (
  options: Options
): Effect.Effect<Summary, Database.DatabaseUnavailable | SetupError | Database.ConnectionLost> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const runnerCount = options.runners ?? 2
    const killEvery = options.killEvery ?? { min: 1000, max: 4000 }
    // The server answers (or the command says which database does not), then the soak's own database.
    yield* Effect.provide(Effect.void, Database.layer(options.url, { maxConnections: 1 }))
    const name = `agent_harness_soak_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`
    yield* execute(options.url, `CREATE DATABASE ${name}`, "cannot create the soak's database")
    const url = withDatabase(options.url, name)
    const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-pg-soak-"))
    const entry = yield* Bundle.entry(runnerSource, { bundle: options.bundle })
    const lines: Lines = []
    const problems: Array<string> = []
    const outcome = yield* Effect.scoped(
      Effect.gen(function* () {
        const ports = yield* Effect.forEach(Array.from({ length: runnerCount }), () => freePort)
        const argsOf = (port: number) => [
          url,
          root,
          String(port),
          ...(options.withoutJournal === true ? ["--no-journal"] : [])
        ]
        const runners = yield* Effect.forEach(ports, (port) =>
          startRunner(entry.path, argsOf(port), port, lines, problems)
        )
        const kills = yield* Ref.make({ kills: 0, held: 0 })
        const attempts = yield* Ref.make(0)
        const killAndRestart = (i: number, victim: Runner, held: boolean) =>
          Effect.gen(function* () {
            if (yield* kill(victim)) {
              yield* Ref.update(kills, (n) => ({ kills: n.kills + 1, held: n.held + (held ? 1 : 0) }))
            }
            runners[i] = yield* startRunner(entry.path, argsOf(victim.port), victim.port, lines, problems)
          })
        // The first round, right away: every runner holds in its next append and is killed there
        // (or after `holdMillis` if it gets none), so that at least one kill lands inside a call
        // however fast the runs end.
        const firstRound =
          options.holds === false
            ? Effect.void
            : Effect.forEach(
                runners.map((victim, i) => [i, victim] as const),
                ([i, victim]) => Effect.flatMap(holdIn(victim), (held) => killAndRestart(i, victim, held)),
                { concurrency: "unbounded", discard: true }
              )
        const killer = Effect.gen(function* () {
          yield* firstRound
          while (true) {
            yield* Effect.sleep(yield* Random.nextBetween(killEvery.min, killEvery.max))
            const i = yield* Random.nextIntBetween(0, runnerCount)
            const victim = runners[i]
            if (victim === undefined) continue
            const tried = yield* Ref.get(attempts)
            yield* Ref.set(attempts, tried + 1)
            const held = options.holds !== false && tried % 2 === 1 ? yield* holdIn(victim) : false
            yield* killAndRestart(i, victim, held)
          }
        })
        const killing = yield* Effect.forkScoped(killer)
        const sessions = PgSoakWorkflows.sessions()
        const conversations = PgSoakWorkflows.conversations()
        const base = options.seed ?? 1
        const ended = yield* Effect.forEach(
          Array.from({ length: options.runs }, (_, i) => PgSoakWorkflows.runOf(i + 1, base + i)),
          (run) =>
            Effect.gen(function* () {
              const from = yield* Clock.currentTimeMillis
              const result: Effect.Effect<
                ReadonlyMap<string, Observed>,
                DurableSession.PlannerFailed | DurableLoop.ConversationFailed | Database.ConnectionLost,
                WorkflowEngine.WorkflowEngine
              > = Database.lostAsFailure<
                ReadonlyMap<string, Observed>,
                DurableSession.PlannerFailed | DurableLoop.ConversationFailed,
                WorkflowEngine.WorkflowEngine
              >(
                run.kind === "session"
                  ? Effect.map(
                      sessions.run({ session_id: run.id, goal: PgSoakWorkflows.request(run) }),
                      observedOfSession
                    )
                  : Effect.map(
                      conversations.run({ conversation_id: run.id, messages: PgSoakWorkflows.opening(run) }),
                      observedOfConversation
                    )
              )
              const got = yield* result.pipe(
                Effect.timeoutOrElse({
                  duration: sessionMillis,
                  orElse: () => Effect.fail(`it did not finish in ${sessionMillis / 1000} s`)
                }),
                Effect.result
              )
              // A lost database ends the soak: nothing after it could be judged.
              if (got._tag === "Failure" && got.failure instanceof Database.ConnectionLost) {
                return yield* got.failure
              }
              const to = yield* Clock.currentTimeMillis
              const done: Ended =
                got._tag === "Success"
                  ? { run, observed: got.success, millis: to - from, problem: undefined }
                  : {
                      run,
                      observed: undefined,
                      millis: to - from,
                      problem: typeof got.failure === "string" ? got.failure : `it failed: ${got.failure.message}`
                    }
              if (options.onRun !== undefined) {
                const observed = done.observed ?? new Map<string, Observed>()
                yield* options.onRun({
                  run: run.run,
                  seed: run.seed,
                  kind: run.kind,
                  calls: observed.size,
                  unknown: [...observed.values()].filter((o) => o.content === MessageCatalog.english.outcomeUnknown)
                    .length,
                  replayed: lines.filter((l) => l.session === run.id && l.outcome === "Replayed").length,
                  millis: done.millis
                })
              }
              return done
            }),
          { concurrency: options.concurrency ?? 8 }
        ).pipe(Effect.provide(Engine.client({ url, sharding: PgSoakWorkflows.sharding })))
        yield* Fiber.interrupt(killing)
        const killed = yield* Ref.get(kills)
        yield* Effect.forEach(runners, kill, { discard: true })
        return { ended, kills: killed }
      })
    ).pipe(
      Effect.tapErrorTag("ConnectionLost", () => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
    )
    const entries = yield* Effect.provide(
      Effect.flatMap(PgStore.make(), (store) => store.entries),
      Database.layer(url, { maxConnections: 1 })
    ).pipe(Effect.catchTag("JournalError", (error) => Effect.succeed(error.message)))
    const violations: Array<string> = [...problems]
    if (typeof entries === "string") violations.push(`the journal cannot be read: ${entries}`)
    let duplicated = 0
    let unknown = 0
    let unfinished = 0
    let replayed = 0
    for (const ended of outcome.ended) {
      const found = yield* check(ended, root, typeof entries === "string" ? [] : entries, lines)
      violations.push(...found.violations)
      duplicated += found.duplicated
      unknown += found.unknown
      unfinished += found.unfinished
      replayed += found.replayed
    }
    if (outcome.kills.kills === 0) violations.push("no runner was killed while sessions ran: nothing was tested")
    if (violations.length > 0 && options.keepFailed !== false) {
      violations.push(`the database ${name} and the folders ${root} are kept`)
    } else {
      fs.rmSync(root, { recursive: true, force: true })
      yield* Effect.ignore(execute(options.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, "cannot drop"))
    }
    const ended = yield* Clock.currentTimeMillis
    return {
      runs: outcome.ended.length,
      runners: runnerCount,
      kills: outcome.kills.kills,
      held: outcome.kills.held,
      duplicated,
      unknown,
      unfinished,
      replayed,
      violations,
      millis: ended - started,
      child: entry.child,
      bundleError: entry.bundleError
    }
  }).pipe(Effect.scoped)
