/**
 * The crash-safety soak: fault injection for real. Each run starts the soak child (a journaled
 * conversation full of `append` and `write` calls over a durable environment) in a fresh
 * folder, kills it with SIGKILL at a random instant after it is loaded, starts it again on the
 * same journal and environment, a random number of times, then lets it finish. Each kill is
 * planned in a call of the conversation, and the child is told to hold in that call (after it
 * ran, before its outcome is recorded): every planned kill lands, there at the latest, however
 * late a loaded machine lets the driver read the child's output. Then it checks:
 *
 * - no append ran twice: each append's mark (`[a17]`) is counted in the environment's files,
 *   and more than one is `duplicated`;
 * - every call the journal holds as started and never finished was reported outcome unknown by
 *   the last child (`unknown`), and no later child ran a call once reported unknown (its mark
 *   count never grows after that);
 * - calls that completed are replayed by later children, never run again (`replayed` counts
 *   the replayed observations over every start of every run), and none is lost (a finished
 *   append's mark is in the environment).
 *
 * Runs go two at a time by default (the child's start-up dominates, and is one core's work).
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { FlatFiles } from "@agent-harness/file-tools"
import { SqliteStore } from "@agent-harness/idempotency"
import { Clock, Effect, Predicate } from "effect"
import * as Bundle from "../Bundle.ts"
import * as SoakConversation from "./SoakConversation.ts"

/**
 * Options of a soak.
 *
 * @since 0.1.0
 */
export interface Options {
  readonly runs: number
  /** Kills per run; by default a random number from 0 to 6 for each run. */
  readonly killsPerRun?: number | undefined
  /** Run `i` plays the conversation of seed `seed + i`; default 1. */
  readonly seed?: number | undefined
  /** Runs at once; default 2. */
  readonly concurrency?: number | undefined
  /**
   * The child's entry point. By default `SoakChild.ts` is bundled (with rolldown, from the
   * sources as they are) into one file for the soak, which starts about four times faster than
   * the sources (the `effect` barrel alone takes ~200 ms to load); `SoakChild.ts` itself runs
   * when bundling is off or fails.
   */
  readonly child?: string | undefined
  /** Bundle the child (default true). */
  readonly bundle?: boolean | undefined
  /**
   * Run the children without the journal (default false): the soak's own check, which must then
   * find appends run twice.
   */
  readonly withoutJournal?: boolean | undefined
  /**
   * Kill at random instants (default true). Each kill is planned in some call of the
   * conversation; the child is told to hold in that call (after it ran, before its outcome is
   * recorded), so the kill lands there at the latest, however loaded the machine. With `false`
   * every kill lands exactly there: the same calls are interrupted on every run of the soak.
   */
  readonly randomInstants?: boolean | undefined
  /** Keep the folder (journal and environment) of a run that went wrong (default true). */
  readonly keepFailed?: boolean | undefined
  /** Called after each run. */
  readonly onRun?: ((report: RunReport) => Effect.Effect<void>) | undefined
}

/**
 * What a soak counts, in one run or over all of them (both soaks).
 *
 * @since 0.1.0
 */
export interface Counts {
  /** SIGKILLs that hit a running child: every planned one, unless a child failed first. */
  readonly kills: number
  /** Of them, the kills that found the child holding in a call it had asked to hold in. */
  readonly held: number
  /** Appends whose mark is in the environment more than once. */
  readonly duplicated: number
  /** Calls reported outcome unknown (by the last child, or by the sessions' results). */
  readonly unknown: number
  /** Calls the journal holds as started and never finished: `unknown` when all is well. */
  readonly unfinished: number
  /** Replayed observations over every start. */
  readonly replayed: number
  /** Everything that went wrong, in words; the folder is kept when there is any. */
  readonly violations: ReadonlyArray<string>
  readonly millis: number
}

/**
 * What one run found.
 *
 * @since 0.1.0
 */
export interface RunReport extends Counts {
  /** From 1. */
  readonly run: number
  readonly seed: number
  /** Calls in the conversation. */
  readonly calls: number
  /** Children started (kills + 1 when all went well). */
  readonly starts: number
  /** The kills planned. */
  readonly planned: number
}

/**
 * The soak's figures.
 *
 * @since 0.1.0
 */
export interface Summary extends Counts {
  readonly runs: number
  /** The child that ran: a bundle of its source, or a file. */
  readonly child: string
  /** Why the child could not be bundled (it ran from the sources, slower). */
  readonly bundleError: string | undefined
}

/**
 * The summary line of `--json`: exactly `runs`, `kills`, `duplicated`, `unknown`, `replayed`.
 *
 * @since 0.1.0
 */
export const summaryJson = (summary: Pick<Summary, "runs" | "kills" | "duplicated" | "unknown" | "replayed">): string =>
  JSON.stringify({
    runs: summary.runs,
    kills: summary.kills,
    duplicated: summary.duplicated,
    unknown: summary.unknown,
    replayed: summary.replayed
  })

/**
 * Whether the soak passed: nothing duplicated, nothing else wrong.
 *
 * @since 0.1.0
 */
export const passed = (summary: Pick<Summary, "duplicated" | "violations">): boolean =>
  summary.duplicated === 0 && summary.violations.length === 0

/**
 * The child's entry point, next to this file.
 *
 * @since 0.1.0
 */
export const childSource = fileURLToPath(new URL("./SoakChild.ts", import.meta.url))

/** A child that runs this long is stuck: it is killed and reported. */
const stuckMillis = 120_000

/** One observation line of a child. */
interface Seen {
  readonly id: string
  readonly outcome: string
  readonly failure: string | undefined
}

/** What the children said of a call so far. */
type Known = "ran" | "replayed" | "unknown"

const knownOf = (seen: Seen): Known =>
  seen.outcome === "Replayed" ? "replayed" : seen.failure === "OutcomeUnknown" ? "unknown" : "ran"

/** Milliseconds from the first of some calls to the last, and how many came after the first. */
interface Rate {
  readonly millis: number
  readonly calls: number
}

/** Times the lines of one kind as they come. */
const makeTimer = () => {
  let first = 0
  let last = 0
  let count = 0
  return {
    tick: () => {
      last = performance.now()
      if (count === 0) first = last
      count += 1
    },
    rate: (): Rate | undefined => (count < 2 ? undefined : { millis: last - first, calls: count - 1 })
  }
}

/** What one child did. */
interface ChildRun {
  readonly ready: number | undefined
  readonly seen: ReadonlyArray<Seen>
  readonly done: boolean
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** We sent the SIGKILL (and the child had not exited yet). */
  readonly killed: boolean
  /** The child was holding in its planned call when it was killed. */
  readonly held: boolean
  readonly stuck: boolean
  readonly stderr: string
  readonly problems: ReadonlyArray<string>
  /** How fast calls ran, and were replayed. */
  readonly ran: Rate | undefined
  readonly replayed: Rate | undefined
}

/**
 * Starts the child and waits for it to exit. With `kill`, the child holds in call `kill.holdAt`
 * and is killed when it says so, or earlier, `kill.after` milliseconds after it is ready (when
 * that gives a number); without, it is let finish.
 */
const startChild = (
  entry: string,
  journal: string | undefined,
  envdir: string,
  seed: number,
  kill: { readonly holdAt: number; readonly after: (calls: number) => number | undefined } | undefined
): Effect.Effect<ChildRun> =>
  Effect.callback<ChildRun>((resume) => {
    const child = spawn(
      process.execPath,
      [
        "--disable-warning=ExperimentalWarning",
        entry,
        journal ?? "-",
        envdir,
        String(seed),
        ...(journal === undefined ? ["--no-journal"] : []),
        ...(kill === undefined ? [] : ["--hold-at", String(kill.holdAt)])
      ],
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    const seen: Array<Seen> = []
    const problems: Array<string> = []
    let ready: number | undefined
    const ran = makeTimer()
    const replayed = makeTimer()
    let done = false
    let killed = false
    let held = false
    let stuck = false
    let stdout = ""
    let stderr = ""
    let killTimer: ReturnType<typeof setTimeout> | undefined
    const sigkill = () => {
      if (child.exitCode === null && child.signalCode === null && !killed) killed = child.kill("SIGKILL")
    }
    const stuckTimer = setTimeout(() => {
      stuck = true
      sigkill()
    }, stuckMillis)
    const onLine = (text: string) => {
      let line: unknown
      try {
        line = JSON.parse(text)
      } catch {
        problems.push(`the child printed a line that is not JSON: ${text.slice(0, 200)}`)
        return
      }
      if (!Predicate.isObject(line)) {
        problems.push(`the child printed ${text.slice(0, 200)}`)
      } else if (line.ready === true && typeof line.calls === "number") {
        ready = line.calls
        const delay = kill?.after(line.calls)
        if (delay !== undefined) killTimer = setTimeout(sigkill, delay)
      } else if (typeof line.holding === "string") {
        if (kill === undefined) problems.push(`the child held in ${line.holding} unasked`)
        held = !killed
        sigkill()
      } else if (line.done === true) {
        done = true
      } else if (typeof line.id === "string" && typeof line.outcome === "string") {
        const one: Seen = {
          id: line.id,
          outcome: line.outcome,
          failure: typeof line.failure === "string" ? line.failure : undefined
        }
        seen.push(one)
        const kind = knownOf(one)
        if (kind === "ran") ran.tick()
        else if (kind === "replayed") replayed.tick()
      } else {
        problems.push(`the child printed ${text.slice(0, 200)}`)
      }
    }
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      let end = stdout.indexOf("\n")
      while (end >= 0) {
        onLine(stdout.slice(0, end))
        stdout = stdout.slice(end + 1)
        end = stdout.indexOf("\n")
      }
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    child.on("error", (error) => problems.push(`the child could not be started: ${error.message}`))
    child.on("close", (code, signal) => {
      clearTimeout(stuckTimer)
      if (killTimer !== undefined) clearTimeout(killTimer)
      resume(
        Effect.succeed({
          ready,
          seen,
          done,
          code,
          signal,
          killed: killed && signal === "SIGKILL",
          held: held && killed && signal === "SIGKILL",
          stuck,
          stderr,
          problems,
          ran: ran.rate(),
          replayed: replayed.rate()
        })
      )
    })
    return Effect.sync(sigkill)
  })

/**
 * How many times each append's mark is in the environment.
 *
 * @since 0.1.0
 */
export const countMarks = (envdir: string): Effect.Effect<ReadonlyMap<string, number>, FlatFiles.FlatFilesError> =>
  Effect.gen(function* () {
    const files = yield* FlatFiles.make(envdir)
    const counts = new Map<string, number>()
    for (const [, content] of yield* files.entries) {
      for (const match of content.matchAll(SoakConversation.appendMark)) {
        const id = match[1]
        if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1)
      }
    }
    return counts
  })

/**
 * Running estimates of how long a call takes in the child when it runs and when it is replayed,
 * to place the kills in the conversation.
 */
const makePace = () => {
  let ran = 2
  let replayed = 0.3
  const blend = (was: number, rate: Rate | undefined) =>
    rate === undefined || rate.calls < 5 ? was : 0.8 * was + 0.2 * (rate.millis / rate.calls)
  return {
    ran: () => ran,
    replayed: () => replayed,
    update: (child: ChildRun) => {
      ran = blend(ran, child.ran)
      replayed = blend(replayed, child.replayed)
    }
  }
}

type Pace = ReturnType<typeof makePace>

/**
 * One run: a fresh folder, the child started and killed `kills` times, then let finish, and
 * the checks.
 */
const runOne = (
  entry: string,
  journaled: boolean,
  randomInstants: boolean,
  keepFailed: boolean,
  run: number,
  seed: number,
  targetKills: number | undefined,
  pace: Pace
): Effect.Effect<RunReport> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const next = SoakConversation.random(seed * 7919 + 17)
    const target = targetKills ?? Math.floor(next() * 7)
    const calls = SoakConversation.calls(SoakConversation.conversation(seed))
    // Where the kills land: after how many answered calls (plus a fraction of the next call),
    // spread over the whole conversation.
    const killAt = Array.from({ length: target }, () => next() * calls.length).sort((a, b) => a - b)
    const dir = yield* Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-soak-")))
    const journal = nodePath.join(dir, "journal.db")
    const envdir = nodePath.join(dir, "env")
    const violations: Array<string> = []
    const violation = (text: string) => violations.push(`run ${run} (seed ${seed}): ${text}`)
    const known = new Map<string, Known>()
    /** For each call first reported unknown: its mark count before the child that reported it started. */
    const unknownBaseline = new Map<string, number>()
    let kills = 0
    let held = 0
    let replayed = 0
    let starts = 0
    let last: ChildRun | undefined
    while (true) {
      const before = yield* Effect.orDie(countMarks(envdir))
      const at = killAt[kills]
      // The kill planned in call ⌊at⌋: at a random instant estimated from the pace, and at the
      // latest where the child holds, in that call.
      const child = yield* startChild(
        entry,
        journaled ? journal : undefined,
        envdir,
        seed,
        at === undefined
          ? undefined
          : {
              holdAt: Math.floor(at),
              after: () => {
                if (!randomInstants) return undefined
                // The answered calls replay first; a kill planned among them lands during the replay.
                const replay = known.size * pace.replayed()
                return at > known.size ? replay + (at - known.size) * pace.ran() : next() * replay
              }
            }
      )
      starts += 1
      pace.update(child)
      if (child.ready !== undefined && child.ready !== calls.length) {
        violation(`the child has ${child.ready} calls, the driver ${calls.length}`)
      }
      for (const problem of child.problems) violation(problem)
      for (const seen of child.seen) {
        const now = knownOf(seen)
        const was = known.get(seen.id)
        if (seen.outcome === "Replayed") replayed += 1
        if (seen.outcome === "NotExecuted" || seen.outcome === "Refused") {
          violation(`${seen.id} was ${seen.outcome} (start ${starts})`)
        }
        if (was === "unknown" && now !== "unknown") {
          violation(`${seen.id} was reported outcome unknown, then ${seen.outcome} (start ${starts})`)
        } else if ((was === "ran" || was === "replayed") && now !== "replayed") {
          violation(`${seen.id} had finished, then was ${seen.outcome} again (start ${starts})`)
        }
        if (now === "unknown" && was === undefined) unknownBaseline.set(seen.id, before.get(seen.id) ?? 0)
        known.set(seen.id, was === "unknown" ? "unknown" : now)
      }
      if (child.stuck) {
        violation(`a child ran for ${stuckMillis / 1000} s and was killed`)
        break
      }
      if (child.killed) {
        kills += 1
        if (child.held) held += 1
        continue
      }
      if (child.code !== 0 || !child.done) {
        violation(
          `the child exited with ${child.signal ?? `code ${child.code}`}${child.done ? "" : " before the end"}: ${child.stderr.trim().slice(0, 500)}`
        )
        break
      }
      last = child
      break
    }
    const counts = yield* Effect.orDie(countMarks(envdir))
    let duplicated = 0
    for (const [id, count] of counts) {
      if (count > 1) {
        duplicated += 1
        violation(`${id} ran ${count} times: its mark is in the environment ${count} times`)
      }
    }
    for (const [id, baseline] of unknownBaseline) {
      const count = counts.get(id) ?? 0
      if (count !== baseline) {
        violation(`${id} was reported outcome unknown with ${baseline} mark(s), and has ${count} at the end`)
      }
    }
    let unknown = 0
    let unfinished = 0
    if (last !== undefined) {
      const final = last
      const reportedUnknown = new Set(final.seen.filter((s) => knownOf(s) === "unknown").map((s) => s.id))
      unknown = reportedUnknown.size
      const answered = new Set(final.seen.map((s) => s.id))
      const missing = calls.filter((call) => !answered.has(call.id)).map((call) => call.id)
      if (missing.length > 0) violation(`the last child did not answer ${missing.join(", ")}`)
      const entries = yield* Effect.result(Effect.scoped(Effect.flatMap(SqliteStore.make(journal), (s) => s.entries)))
      if (entries._tag === "Failure") {
        violation(`the journal cannot be read: ${entries.failure.message}`)
      } else {
        unfinished = entries.success.filter((e) => e.state === "started").length
        for (const entry of entries.success) {
          const count = counts.get(entry.id) ?? 0
          if (entry.state === "started" && !reportedUnknown.has(entry.id)) {
            violation(`${entry.id} is started in the journal, and the last child did not report it outcome unknown`)
          }
          if (entry.state === "done" && reportedUnknown.has(entry.id)) {
            violation(`${entry.id} is done in the journal, and the last child reported it outcome unknown`)
          }
          if (entry.state === "done" && entry.name === "append" && count !== 1) {
            violation(`${entry.id} finished, and its mark is in the environment ${count} times`)
          }
        }
        const inJournal = new Set(entries.success.map((e) => e.id))
        for (const id of reportedUnknown) {
          if (!inJournal.has(id)) violation(`${id} was reported outcome unknown, and the journal does not hold it`)
        }
      }
    }
    if (violations.length > 0 && keepFailed) {
      violation(`its folder is kept: ${dir}`)
    } else {
      yield* Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    }
    const ended = yield* Clock.currentTimeMillis
    return {
      run,
      seed,
      calls: calls.length,
      starts,
      planned: target,
      kills,
      held,
      duplicated,
      unknown,
      unfinished,
      replayed,
      millis: ended - started,
      violations
    }
  })

/**
 * Runs the soak.
 *
 * @since 0.1.0
 */
export const run = (options: Options): Effect.Effect<Summary> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const entry = yield* Bundle.entry(childSource, { given: options.child, bundle: options.bundle })
    const pace = makePace()
    const base = options.seed ?? 1
    const reports = yield* Effect.forEach(
      Array.from({ length: options.runs }, (_, i) => i),
      (i) =>
        Effect.tap(
          runOne(
            entry.path,
            options.withoutJournal !== true,
            options.randomInstants !== false,
            options.keepFailed !== false,
            i + 1,
            base + i,
            options.killsPerRun,
            pace
          ),
          (report) => (options.onRun === undefined ? Effect.void : options.onRun(report))
        ),
      { concurrency: options.concurrency ?? 2 }
    )
    const ended = yield* Clock.currentTimeMillis
    const sum = (f: (r: RunReport) => number) => reports.reduce((total, r) => total + f(r), 0)
    return {
      runs: reports.length,
      kills: sum((r) => r.kills),
      held: sum((r) => r.held),
      duplicated: sum((r) => r.duplicated),
      unknown: sum((r) => r.unknown),
      unfinished: sum((r) => r.unfinished),
      replayed: sum((r) => r.replayed),
      violations: reports.flatMap((r) => r.violations),
      millis: ended - started,
      child: entry.child,
      bundleError: entry.bundleError
    }
  }).pipe(Effect.scoped)
