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
 * With `approvals`, the conversations run behind the soak's policy (`PgSoakApprovals`): their
 * asked calls are parked in the approvals table and answered by the soak's answering child
 * (`PgSoakAnswering`), approve or deny as the seed says, at random moments; the killer also
 * kills while calls wait, between an answer's write and its wake, and right after it
 * (`PgSoakKiller`). Each conversation's approvals are then judged (`PgSoakApprovalsJudge`: no
 * denied call ran, no approved call ran twice, no ask was lost), and the pending approvals read
 * before each runner kill are the same after its restart. A conversation that nothing is heard
 * of for `stallMillis`, while no answer to it is still to come, is given up (a lost ask).
 *
 * The database is dropped at the end (kept, with the folders, when something went wrong). A
 * database that goes away while the soak runs (`Database.ConnectionLost`, seen by the driver's
 * engine) ends the soak with that error at once, nothing judged: its runners are killed and its
 * folders removed (the database, if the server comes back, is left to drop).
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Database, type DurableLoop, type DurableSession, Engine, PgApprovals, PgStore } from "@agent-harness/durable"
import type { Approvals } from "@agent-harness/idempotency"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { Clock, Data, Effect, Fiber, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import type { WorkflowEngine } from "effect/workflow"
import * as Bundle from "../Bundle.ts"
import type * as Soak from "../local/Soak.ts"
import * as PgSoakAnswering from "./PgSoakAnswering.ts"
import * as PgSoakApprovals from "./PgSoakApprovals.ts"
import * as PgSoakApprovalsJudge from "./PgSoakApprovalsJudge.ts"
import * as PgSoakJudge from "./PgSoakJudge.ts"
import * as PgSoakKiller from "./PgSoakKiller.ts"
import * as PgSoakProcess from "./PgSoakProcess.ts"
import type * as PgSoakRunner from "./PgSoakRunner.ts"
import * as PgSoakWorkflows from "./PgSoakWorkflows.ts"

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
  /**
   * Run the conversations behind the soak's permission policy (default false): asked calls
   * parked in the approvals table and answered by the soak's answering child.
   */
  readonly approvals?: boolean | undefined
  /** Milliseconds between a call's parking and its answer; default 100 to 2,000. */
  readonly answerDelay?: { readonly min: number; readonly max: number } | undefined
  /**
   * A conversation nothing is heard of this long, with no answer to it still to come, is given
   * up (a lost ask); default 330,000: longer than the longest wait of a waiting call before it
   * looks at the store again (`DurableApprovals.defaultRecheck`, at most 5 minutes), which is how
   * a conversation takes an answer whose wake-up was lost.
   */
  readonly stallMillis?: number | undefined
  /**
   * Runners read every denied approval as approved (default false): the soak's own check, which
   * must then find denied calls that ran.
   */
  readonly approveDenied?: boolean | undefined
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
  /** With approvals: the calls of a conversation that were parked, and those the soak approved. */
  readonly asks?: { readonly parked: number; readonly approved: number } | undefined
  readonly millis: number
}

/**
 * The approvals' figures of a soak with approvals: the judge's, and where the kills landed.
 *
 * @since 0.1.0
 */
export interface ApprovalsSummary extends PgSoakApprovalsJudge.Counts {
  /** Runners killed while a call they parked waited for its answer. */
  readonly killsWaiting: number
  /** Kills between an answer's write and its wake (the answering child, or the parking runner). */
  readonly killsAnswering: number
  /** Runners killed right after an answer's wake, or held taking it. */
  readonly killsAnswered: number
  /**
   * Answers whose wake-up was lost: written by an answering child killed before it said it woke
   * the conversation, found written by the next one, which left them (the conversation took them
   * on its own).
   */
  readonly wakesLost: number
  /** Pending approvals read before a runner kill and found the same after its restart. */
  readonly pendingKept: number
}

/**
 * The soak's figures: the local soak's, how many runners shared the database, and the approvals'.
 *
 * @since 0.1.0
 */
export interface Summary extends Soak.Summary {
  readonly runners: number
  /** With approvals. */
  readonly approvals?: ApprovalsSummary | undefined
}

/**
 * The soak could not be set up: no database could be created, a runner would not start.
 *
 * @since 0.1.0
 */
export const SetupError: typeof PgSoakProcess.SetupError = PgSoakProcess.SetupError

/**
 * The soak could not be set up.
 *
 * @since 0.1.0
 */
export type SetupError = PgSoakProcess.SetupError

/**
 * The runner's entry point, next to this file.
 *
 * @since 0.1.0
 */
export const runnerSource = fileURLToPath(new URL("./PgSoakRunner.ts", import.meta.url))

/**
 * The answering child's entry point, next to this file.
 *
 * @since 0.1.0
 */
export const answererSource = fileURLToPath(new URL("./PgSoakAnswerer.ts", import.meta.url))

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
      Effect.fail(
        new PgSoakProcess.SetupError({ message: `${what} on ${Database.redact(url)}: ${Database.sqlProblem(error)}` })
      )
    )
  )

const outcomeTags: ReadonlyArray<string> = ["NotExecuted", "Refused", "Failed", "Succeeded", "Replayed"]

const isOutcomeTag = (tag: string): tag is PgSoakRunner.OutcomeLine["outcome"] => outcomeTags.includes(tag)

/** A runner's outcome line, or `undefined`. */
const outcomeLine = (line: { readonly [key: string]: unknown }): PgSoakRunner.OutcomeLine | undefined =>
  typeof line.session === "string" &&
  typeof line.id === "string" &&
  typeof line.outcome === "string" &&
  isOutcomeTag(line.outcome)
    ? {
        session: line.session,
        id: line.id,
        outcome: line.outcome,
        ...(typeof line.original === "string" ? { original: line.original } : {}),
        ...(typeof line.failure === "string" ? { failure: line.failure } : {})
      }
    : undefined

/** A conversation given up: nothing heard of it, no answer to it still to come. */
class Stalled extends Data.TaggedError("Stalled")<{ readonly seconds: number }> {
  override get message(): string {
    return `it was given up: nothing was heard of it for ${this.seconds} s, and no answer to it was still to come`
  }
}

/**
 * Runs the Postgres soak.
 *
 * @since 0.1.0
 */
export const run = (
  options: Options
): Effect.Effect<Summary, Database.DatabaseUnavailable | PgSoakProcess.SetupError | Database.ConnectionLost> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const runnerCount = options.runners ?? 2
    const approvals = options.approvals === true
    const stallMillis = options.stallMillis ?? 330_000
    // The server answers (or the command says which database does not), then the soak's own database.
    yield* Effect.provide(Effect.void, Database.layer(options.url, { maxConnections: 1 }))
    const name = `agent_harness_soak_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`
    yield* execute(options.url, `CREATE DATABASE ${name}`, "cannot create the soak's database")
    const url = withDatabase(options.url, name)
    const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-pg-soak-"))
    const entry = yield* Bundle.entry(runnerSource, { bundle: options.bundle })
    const answerer = approvals ? yield* Bundle.entry(answererSource, { bundle: options.bundle }) : undefined
    const lines: Array<PgSoakRunner.OutcomeLine> = []
    const problems: Array<string> = []
    /** When each session's last outcome line came. */
    const progress = new Map<string, number>()
    const outcome = yield* Effect.scoped(
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const client = yield* Layer.build(Engine.client({ url, sharding: PgSoakWorkflows.sharding }))
        const answering =
          answerer === undefined
            ? undefined
            : yield* PgSoakAnswering.make({
                entry: answerer.path,
                args: [url],
                delay: options.answerDelay ?? { min: 100, max: 2000 },
                problems
              })
        const store = approvals ? yield* Effect.provideContext(PgApprovals.make(), client) : undefined
        const ports = yield* Effect.forEach(Array.from({ length: runnerCount }), () => PgSoakProcess.freePort)
        const argsOf = (port: number) => [
          url,
          root,
          String(port),
          ...(options.withoutJournal === true ? ["--no-journal"] : []),
          ...(approvals ? ["--approvals"] : []),
          ...(approvals && options.approveDenied === true ? ["--approve-denied"] : [])
        ]
        const onLine = (line: { readonly [key: string]: unknown }, runner: PgSoakProcess.Child) => {
          const seen = outcomeLine(line)
          const parked = PgSoakApprovals.readParked(line)
          if (seen !== undefined) {
            lines.push(seen)
            progress.set(seen.session, Date.now())
          } else if (parked !== undefined && answering !== undefined) answering.onParked(parked, runner)
          else problems.push(`${runner.label} printed ${JSON.stringify(line).slice(0, 200)}`)
        }
        const lives = ports.map(() => 0)
        const startRunner = (i: number) =>
          Effect.suspend(() => {
            const port = ports[i] ?? 0
            lives[i] = (lives[i] ?? 0) + 1
            return PgSoakProcess.start(entry.path, argsOf(port), `runner :${port} #${lives[i]}`, onLine, problems)
          }).pipe(Effect.provideService(Scope.Scope, scope))
        const runners = yield* Effect.forEach(ports, (_, i) => startRunner(i))
        const killer = PgSoakKiller.make(
          { runners, restart: startRunner },
          {
            killEvery: options.killEvery ?? { min: 1000, max: 4000 },
            holds: options.holds !== false,
            approvals:
              answering === undefined || store === undefined
                ? undefined
                : {
                    answering,
                    pending: Effect.mapError(store.list({ state: "pending" }), (error) => error.message)
                  },
            problems
          }
        )
        const killing = yield* Effect.forkScoped(killer.loop)
        const sessions = PgSoakWorkflows.sessions()
        const conversations = PgSoakWorkflows.conversations()
        /** Fails with `Stalled` once the conversation is given up (never, without approvals). */
        const watchdog = (run: PgSoakWorkflows.Run, from: number): Effect.Effect<never, Stalled> =>
          Effect.gen(function* () {
            if (answering === undefined || run.kind !== "conversation") return yield* Effect.never
            while (true) {
              yield* Effect.sleep(Math.min(5000, stallMillis / 4))
              const now = yield* Clock.currentTimeMillis
              const last = Math.max(from, progress.get(run.id) ?? 0, answering.lastHeard(run.id) ?? 0)
              if (!answering.owes(run.id) && now - last >= stallMillis) {
                return yield* new Stalled({ seconds: Math.round((now - last) / 1000) })
              }
            }
          })
        const base = options.seed ?? 1
        const ended = yield* Effect.forEach(
          Array.from({ length: options.runs }, (_, i) => PgSoakWorkflows.runOf(i + 1, base + i)),
          (run) =>
            Effect.gen(function* () {
              const from = yield* Clock.currentTimeMillis
              const result: Effect.Effect<
                ReadonlyMap<string, PgSoakJudge.Observed>,
                DurableSession.PlannerFailed | DurableLoop.ConversationFailed | Database.ConnectionLost,
                WorkflowEngine.WorkflowEngine
              > = Database.lostAsFailure<
                ReadonlyMap<string, PgSoakJudge.Observed>,
                DurableSession.PlannerFailed | DurableLoop.ConversationFailed,
                WorkflowEngine.WorkflowEngine
              >(
                run.kind === "session"
                  ? Effect.map(
                      sessions.run({ session_id: run.id, goal: PgSoakWorkflows.request(run) }),
                      PgSoakJudge.observedOfSession
                    )
                  : Effect.map(
                      conversations.run({ conversation_id: run.id, messages: PgSoakWorkflows.opening(run) }),
                      PgSoakJudge.observedOfConversation
                    )
              )
              const got = yield* Effect.raceFirst(result, watchdog(run, from)).pipe(
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
              const done: PgSoakJudge.Ended =
                got._tag === "Success"
                  ? { run, observed: got.success, millis: to - from, problem: undefined }
                  : {
                      run,
                      observed: undefined,
                      millis: to - from,
                      problem: typeof got.failure === "string" ? got.failure : `it failed: ${got.failure.message}`,
                      stalled: got.failure instanceof Stalled
                    }
              if (options.onRun !== undefined) yield* options.onRun(reportOf(done, lines, answering))
              return done
            }),
          { concurrency: options.concurrency ?? 8 }
        ).pipe(Effect.provideContext(client))
        yield* Fiber.interrupt(killing)
        yield* Effect.forEach(runners, PgSoakProcess.kill, { discard: true })
        return { ended, killer: killer.counts, record: answering?.record() }
      })
    ).pipe(
      Effect.tapErrorTag("ConnectionLost", () => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
    )
    const read = Effect.all({
      entries: Effect.flatMap(PgStore.make(), (store) => store.entries).pipe(
        Effect.catchTag("JournalError", (error) => Effect.succeed(error.message))
      ),
      rows: approvals
        ? Effect.flatMap(PgApprovals.make(), (store) => store.list()).pipe(
            Effect.catchTag("ApprovalError", (error) => Effect.succeed(error.message))
          )
        : Effect.succeed<ReadonlyArray<Approvals.Approval>>([])
    }).pipe(Effect.provide(Database.layer(url, { maxConnections: 1 })))
    const { entries, rows } = yield* read
    const violations: Array<string> = [...problems]
    if (typeof entries === "string") violations.push(`the journal cannot be read: ${entries}`)
    if (typeof rows === "string") violations.push(`the approvals cannot be read: ${rows}`)
    let duplicated = 0
    let unknown = 0
    let unfinished = 0
    let replayed = 0
    let counts = PgSoakApprovalsJudge.zero
    for (const ended of outcome.ended) {
      const found = yield* PgSoakJudge.check(ended, root, typeof entries === "string" ? [] : entries, lines)
      violations.push(...found.violations)
      duplicated += found.duplicated
      unknown += found.unknown
      unfinished += found.unfinished
      replayed += found.replayed
      if (outcome.record !== undefined && ended.run.kind === "conversation") {
        const judged = PgSoakApprovalsJudge.check({
          ended,
          rows: typeof rows === "string" ? [] : rows.filter((row) => row.session === ended.run.id),
          marks: found.marks,
          lines: lines.filter((line) => line.session === ended.run.id),
          record: outcome.record
        })
        violations.push(...judged.violations)
        counts = PgSoakApprovalsJudge.add(counts, judged.counts)
      }
    }
    const killed = outcome.killer
    if (killed.kills === 0) violations.push("no runner was killed while sessions ran: nothing was tested")
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
      kills: killed.kills,
      held: killed.held,
      duplicated,
      unknown,
      unfinished,
      replayed,
      violations,
      millis: ended - started,
      child: entry.child,
      bundleError: entry.bundleError ?? answerer?.bundleError,
      ...(outcome.record === undefined
        ? {}
        : {
            approvals: {
              ...counts,
              lost: counts.lost + killed.pendingLost,
              killsWaiting: killed.killsWaiting,
              killsAnswering: killed.killsAnswering,
              killsAnswered: killed.killsAnswered,
              wakesLost: [...outcome.record.given.values()].filter((g) => g.wakeLost).length,
              pendingKept: killed.pendingKept
            }
          })
    }
  }).pipe(Effect.scoped)

/** What a run's progress line says. */
const reportOf = (
  done: PgSoakJudge.Ended,
  lines: ReadonlyArray<PgSoakRunner.OutcomeLine>,
  answering: PgSoakAnswering.Answering | undefined
): RunReport => {
  const { run } = done
  const observed = done.observed ?? new Map<string, PgSoakJudge.Observed>()
  const record = answering?.record()
  const parked = new Set(record?.parked.filter((p) => p.line.session === run.id).map((p) => p.line.id))
  const approved = [...(record?.given.values() ?? [])].filter((g) => g.session === run.id && g.approve).length
  return {
    run: run.run,
    seed: run.seed,
    kind: run.kind,
    calls: observed.size,
    unknown: [...observed.values()].filter((o) => o.content === MessageCatalog.english.outcomeUnknown).length,
    replayed: lines.filter((l) => l.session === run.id && l.outcome === "Replayed").length,
    ...(record === undefined || run.kind !== "conversation" ? {} : { asks: { parked: parked.size, approved } }),
    millis: done.millis
  }
}
