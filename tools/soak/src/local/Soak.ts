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
 * With `commands` it is the commands soak: the same conversations, their appends made by the
 * `command` tool of `@agent-harness/command` (a sandboxed `sh` appends the call's mark to a file
 * of a real root folder, in a bubblewrap sandbox the child detects at each start), through the
 * same journal. Half the planned kills (by the seed) hold inside the planned call's command, the
 * command blocked in its sandbox after it appended its mark; kills at random instants land
 * inside commands too. It counts the commands started and the kills that landed while one ran,
 * and after each run checks that nothing of its sandboxes is left: no process whose command line
 * holds the run's folder, no cgroup of one of its children (what it finds is a violation, then
 * killed and removed). Right after each kill it looks for a sandbox that outlived the killed
 * child (a process of the run still running, not dying): bwrap's `--die-with-parent` leaves a
 * sandbox whose parent dies while it starts running on its own (bubblewrap issue 633; see
 * `SoakSandbox`; the command package's supervisor closes it). Each such kill is counted
 * `orphaned`, the processes killed at once; it is a violation.
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
import * as SoakSandbox from "./SoakSandbox.ts"

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
  /**
   * The commands soak (default false): appends made by the `command` tool in a sandbox over a
   * root folder in each run's folder. The caller checks first that a sandbox can run here
   * (`SoakSandbox.available`); where none can, every child fails, and so every run.
   */
  readonly commands?: boolean | undefined
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
 * What the commands soak counts besides, in one run or over all of them.
 *
 * @since 0.1.0
 */
export interface CommandCounts {
  /** Commands started in a sandbox, over every start. */
  readonly started: number
  /**
   * Kills that landed while a command ran: the child had said it was starting the command's
   * sandbox and had not seen it end (its start-up and teardown included).
   */
  readonly killsInCommand: number
  /** Of them, the kills that found the command itself held inside its sandbox, its mark appended. */
  readonly heldInCommand: number
  /** Processes of a run's sandboxes found running after the run (each a violation). */
  readonly leftRunning: number
  /** Cgroups of a run's children found after the run (each a violation). */
  readonly cgroupsLeft: number
  /**
   * Sandboxes that outlived their killed child: kills after which a process of the child's
   * sandbox was still running, not dying (killed at once), and calls reported outcome unknown
   * whose mark landed later though no child started them again. Each a violation unless allowed.
   */
  readonly orphaned: number
  /** What each orphaned sandbox was. */
  readonly orphans: ReadonlyArray<string>
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
  /** The run's folder (its real path): removed at the end, unless kept because the run went wrong. */
  readonly folder: string
  /** The commands soak's figures (with `commands`). */
  readonly commands?: CommandCounts | undefined
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
  /** The commands soak's figures (with `commands`). */
  readonly commands?: CommandCounts | undefined
}

/**
 * The summary line of `--json`: exactly `runs`, `kills`, `duplicated`, `unknown`, `replayed`;
 * the commands soak adds `commands`, `kills_in_command`, `held_in_command`, `orphaned`,
 * `left_running` and `cgroups_left`.
 *
 * @since 0.1.0
 */
export const summaryJson = (
  summary: Pick<Summary, "runs" | "kills" | "duplicated" | "unknown" | "replayed"> & {
    readonly commands?: CommandCounts | undefined
  }
): string =>
  JSON.stringify({
    runs: summary.runs,
    kills: summary.kills,
    duplicated: summary.duplicated,
    unknown: summary.unknown,
    replayed: summary.replayed,
    ...(summary.commands === undefined
      ? {}
      : {
          commands: summary.commands.started,
          kills_in_command: summary.commands.killsInCommand,
          held_in_command: summary.commands.heldInCommand,
          orphaned: summary.commands.orphaned,
          left_running: summary.commands.leftRunning,
          cgroups_left: summary.commands.cgroupsLeft
        })
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
  /** The calls whose command it started, in order (commands soak). */
  readonly started: ReadonlyArray<string>
  /** It was killed while a command ran (it had said `running` and not `ran`). */
  readonly inCommand: boolean
  /** It was holding inside its planned call's command when it was killed. */
  readonly heldInside: boolean
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
 * (inside its command with `kill.inside`) and is killed when it says so, or earlier,
 * `kill.after` milliseconds after it is ready (when that gives a number); without, it is let
 * finish.
 */
const startChild = (
  entry: string,
  journal: string | undefined,
  envdir: string,
  seed: number,
  commands: boolean,
  /** Where the child's pid and its sandbox's cgroup folder go as soon as they are known. */
  track: { readonly pids: Set<number>; readonly cgroupParents: Set<string> },
  kill:
    | {
        readonly holdAt: number
        readonly inside: boolean
        readonly after: (calls: number) => number | undefined
      }
    | undefined
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
        ...(kill === undefined ? [] : ["--hold-at", String(kill.holdAt)]),
        ...(commands ? ["--commands"] : []),
        ...(commands && kill?.inside === true ? ["--hold-inside"] : [])
      ],
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    if (child.pid !== undefined) track.pids.add(child.pid)
    const seen: Array<Seen> = []
    const problems: Array<string> = []
    let ready: number | undefined
    const commandsStarted: Array<string> = []
    /** The command running, as the child last said. */
    let running: string | undefined
    let heldInside = false
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
        if (typeof line.cgroup === "string") track.cgroupParents.add(line.cgroup)
        const delay = kill?.after(line.calls)
        if (delay !== undefined) killTimer = setTimeout(sigkill, delay)
      } else if (typeof line.holding === "string") {
        if (kill === undefined) problems.push(`the child held in ${line.holding} unasked`)
        if (line.inside === true && kill?.inside !== true)
          problems.push(`the child held inside ${line.holding} unasked`)
        held = !killed
        heldInside = held && line.inside === true
        sigkill()
      } else if (typeof line.running === "string") {
        if (running !== undefined) problems.push(`the child started ${line.running} while ${running} ran`)
        running = line.running
        commandsStarted.push(line.running)
      } else if (typeof line.ran === "string") {
        if (running !== line.ran) problems.push(`the child ended ${line.ran}, which it had not started`)
        running = undefined
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
      const killedHere = killed && signal === "SIGKILL"
      resume(
        Effect.succeed({
          ready,
          started: commandsStarted,
          inCommand: killedHere && running !== undefined,
          heldInside: heldInside && killedHere,
          seen,
          done,
          code,
          signal,
          killed: killedHere,
          held: held && killedHere,
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
const makePace = (commands: boolean) => {
  // A sandboxed command takes some 30 to 40 ms here.
  let ran = commands ? 30 : 2
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

/** A run under way: what to clear when the soak is interrupted. */
interface Live {
  readonly dir: string
  readonly pids: ReadonlySet<number>
  readonly cgroupParents: ReadonlySet<string>
}

/** What every run of a soak shares. */
interface Setup {
  readonly entry: string
  readonly commands: boolean
  readonly journaled: boolean
  readonly randomInstants: boolean
  readonly keepFailed: boolean
  readonly targetKills: number | undefined
  /** The runs under way, by number. */
  readonly live: Map<number, Live>
}

/**
 * Clears what the runs under way leave when the soak is interrupted (Ctrl-C): their processes
 * (children and sandboxes), their children's cgroups and their folders.
 */
const clearLive = (live: ReadonlyMap<number, Live>): Effect.Effect<void> =>
  Effect.forEach(
    [...live.values()],
    (run) =>
      Effect.gen(function* () {
        const processes = yield* SoakSandbox.processesWith(run.dir, run.pids)
        const cgroups: Array<string> = []
        for (const parent of run.cgroupParents) cgroups.push(...(yield* SoakSandbox.cgroupsOf(parent, run.pids)))
        yield* SoakSandbox.clear(processes, cgroups)
        yield* Effect.sync(() => fs.rmSync(run.dir, { recursive: true, force: true }))
      }),
    { discard: true }
  )

/**
 * One run: a fresh folder, the child started and killed `kills` times, then let finish, and
 * the checks.
 */
const runOne = (setup: Setup, run: number, seed: number, pace: Pace): Effect.Effect<RunReport> =>
  Effect.gen(function* () {
    const { entry, commands, journaled, randomInstants, keepFailed, targetKills, live } = setup
    const started = yield* Clock.currentTimeMillis
    const next = SoakConversation.random(seed * 7919 + 17)
    const target = targetKills ?? Math.floor(next() * 7)
    const calls = SoakConversation.calls(SoakConversation.conversation(seed))
    // Where the kills land: after how many answered calls (plus a fraction of the next call),
    // spread over the whole conversation.
    const killAt = Array.from({ length: target }, () => next() * calls.length).sort((a, b) => a - b)
    // Its real path: the commands soak looks for it in command lines.
    const dir = yield* Effect.sync(() =>
      fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-soak-")))
    )
    const journal = nodePath.join(dir, "journal.db")
    // The commands soak's root folder must exist before the sandbox is detected over it.
    const envdir = nodePath.join(dir, commands ? "root" : "env")
    if (commands) yield* Effect.sync(() => fs.mkdirSync(envdir))
    const violations: Array<string> = []
    const violation = (text: string) => violations.push(`run ${run} (seed ${seed}): ${text}`)
    const known = new Map<string, Known>()
    /** For each call first reported unknown: its mark count before the child that reported it started. */
    const unknownBaseline = new Map<string, number>()
    let kills = 0
    let held = 0
    let replayed = 0
    let starts = 0
    let commandsStarted = 0
    let killsInCommand = 0
    let heldInCommand = 0
    let orphaned = 0
    const orphans: Array<string> = []
    /** The calls whose command a later child started again. */
    const restarted = new Set<string>()
    const pids = new Set<number>()
    const cgroupParents = new Set<string>()
    let last: ChildRun | undefined
    live.set(run, { dir, pids, cgroupParents })
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
        commands,
        { pids, cgroupParents },
        at === undefined
          ? undefined
          : {
              holdAt: Math.floor(at),
              // Half the kills (by the seed) hold inside the planned call's command.
              inside: commands && next() < 0.5,
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
      commandsStarted += child.started.length
      for (const id of child.started) {
        const was = known.get(id)
        if (was !== undefined) restarted.add(id)
        if (was !== undefined)
          violation(
            `${id} had been ${was === "unknown" ? "reported outcome unknown" : "answered"}, and its command was started again (start ${starts})`
          )
      }
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
        if (child.inCommand) killsInCommand += 1
        if (child.heldInside) heldInCommand += 1
        if (commands) {
          // The killed child's sandbox must die with it: anything of the run still running
          // (not dying) now outlived it.
          const outlived = yield* SoakSandbox.outlived(dir, pids)
          if (outlived.length > 0) {
            orphaned += 1
            const text =
              `start ${starts}, killed ${child.inCommand ? "while a command started or ran" : "outside a command"}: ` +
              `its sandbox outlived it (${outlived.map((p) => `${p.pid} ${p.args.slice(0, 80)}…`).join("; ")}), killed now`
            orphans.push(`run ${run} (seed ${seed}): ${text}`)
            violation(text)
            yield* SoakSandbox.clear(outlived, [])
          }
        }
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
      if (count === baseline) continue
      const text = `${id} was reported outcome unknown with ${baseline} mark(s), and has ${count} at the end`
      if (commands && baseline === 0 && count === 1 && !restarted.has(id)) {
        // No child started it again: its first command ended after its child was killed, in a
        // sandbox that outlived the child unseen (between two looks, or in an execve).
        orphaned += 1
        orphans.push(`run ${run} (seed ${seed}): ${text}: its command ended after its child was killed`)
        violation(`${text}: its command ended after its child was killed`)
      } else violation(text)
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
          if (entry.state === "done" && (entry.name === "append" || entry.name === "command") && count !== 1) {
            violation(`${entry.id} finished, and its mark is in the environment ${count} times`)
          }
        }
        const inJournal = new Set(entries.success.map((e) => e.id))
        for (const id of reportedUnknown) {
          if (!inJournal.has(id)) violation(`${id} was reported outcome unknown, and the journal does not hold it`)
        }
      }
    }
    let leftRunning = 0
    let cgroupsLeft = 0
    if (commands) {
      // Nothing of the run's sandboxes is left: every child has exited, and each sandbox dies
      // with its child (killed or not) and its cgroup is removed (by the child, or swept by the
      // next child's detect).
      const processes = yield* SoakSandbox.processesWith(dir, pids)
      const cgroups: Array<string> = []
      for (const parent of cgroupParents) cgroups.push(...(yield* SoakSandbox.cgroupsOf(parent, pids)))
      leftRunning = processes.length
      cgroupsLeft = cgroups.length
      for (const p of processes)
        violation(`a process of its sandboxes was left running: ${p.pid} ${p.args.slice(0, 300)}`)
      for (const folder of cgroups) violation(`a cgroup of its children was left: ${folder}`)
      const stuck = yield* SoakSandbox.clear(processes, cgroups)
      for (const folder of stuck) violation(`the cgroup ${folder} could not be removed`)
    }
    if (violations.length > 0 && keepFailed) {
      violation(`its folder is kept: ${dir}`)
    } else {
      yield* Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    }
    live.delete(run)
    const ended = yield* Clock.currentTimeMillis
    return {
      run,
      seed,
      calls: calls.length,
      starts,
      planned: target,
      folder: dir,
      kills,
      held,
      duplicated,
      unknown,
      unfinished,
      replayed,
      millis: ended - started,
      violations,
      ...(commands
        ? {
            commands: {
              started: commandsStarted,
              killsInCommand,
              heldInCommand,
              orphaned,
              orphans,
              leftRunning,
              cgroupsLeft
            }
          }
        : {})
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
    const commands = options.commands === true
    const pace = makePace(commands)
    const base = options.seed ?? 1
    const setup: Setup = {
      entry: entry.path,
      commands,
      journaled: options.withoutJournal !== true,
      randomInstants: options.randomInstants !== false,
      keepFailed: options.keepFailed !== false,
      targetKills: options.killsPerRun,
      live: new Map()
    }
    const reports = yield* Effect.forEach(
      Array.from({ length: options.runs }, (_, i) => i),
      (i) =>
        Effect.tap(runOne(setup, i + 1, base + i, pace), (report) =>
          options.onRun === undefined ? Effect.void : options.onRun(report)
        ),
      { concurrency: options.concurrency ?? 2 }
    ).pipe(Effect.onInterrupt(() => clearLive(setup.live)))
    const ended = yield* Clock.currentTimeMillis
    const sum = (f: (r: RunReport) => number) => reports.reduce((total, r) => total + f(r), 0)
    const sumCommands = (f: (c: CommandCounts) => number) => sum((r) => (r.commands === undefined ? 0 : f(r.commands)))
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
      bundleError: entry.bundleError,
      ...(commands
        ? {
            commands: {
              started: sumCommands((c) => c.started),
              killsInCommand: sumCommands((c) => c.killsInCommand),
              heldInCommand: sumCommands((c) => c.heldInCommand),
              orphaned: sumCommands((c) => c.orphaned),
              orphans: reports.flatMap((r) => r.commands?.orphans ?? []),
              leftRunning: sumCommands((c) => c.leftRunning),
              cgroupsLeft: sumCommands((c) => c.cgroupsLeft)
            }
          }
        : {})
    }
  }).pipe(Effect.scoped)
