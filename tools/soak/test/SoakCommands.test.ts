/**
 * The commands soak: the soak's conversations with their appends made by the `command` tool (a
 * sandboxed `sh` appends each mark), killed with SIGKILL at random instants, inside commands
 * included, and restarted on the same journal; then nothing of the sandboxes is left. Real
 * bubblewrap, no fakes: CI installs it, and a machine without it fails these tests (never skips).
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Soak from "../src/local/Soak.ts"
import * as SoakChild from "../src/local/SoakChild.ts"
import * as SoakConversation from "../src/local/SoakConversation.ts"
import * as SoakSandbox from "../src/local/SoakSandbox.ts"

/** A soak, and the report of each run as it came. */
const runWithReports = (options: Omit<Soak.Options, "onRun">) =>
  Effect.gen(function* () {
    const reports: Array<Soak.RunReport> = []
    const summary = yield* Soak.run({ ...options, onRun: (report) => Effect.sync(() => void reports.push(report)) })
    return { summary, reports }
  })

/** Nothing of these runs' sandboxes is running, checked apart from the soak's own check. */
const nothingLeft = (reports: ReadonlyArray<Soak.RunReport>) =>
  Effect.gen(function* () {
    for (const report of reports) {
      const left = yield* SoakSandbox.processesWith(report.folder)
      expect(left, `run ${report.run}`).toEqual([])
    }
  })

const commandsOf = (summary: Soak.Summary): Soak.CommandCounts => {
  const commands = summary.commands
  if (commands === undefined) throw new Error("a commands soak without its figures")
  return commands
}

describe("the commands soak", () => {
  it.live(
    "after 48 SIGKILLs, inside commands too: no append ran twice, every unfinished command reported outcome unknown, nothing left",
    () =>
      Effect.gen(function* () {
        const { summary, reports } = yield* runWithReports({
          runs: 16,
          killsPerRun: 3,
          seed: 5000,
          commands: true
        })
        expect(summary.bundleError).toBeUndefined()
        expect(summary.violations).toEqual([])
        expect(summary.runs).toBe(16)
        expect(summary.kills).toBe(48)
        expect(reports.every((r) => r.kills === r.planned && r.starts === r.kills + 1)).toBe(true)
        expect(summary.duplicated).toBe(0)
        expect(summary.unknown).toBe(summary.unfinished)
        expect(summary.unknown).toBeGreaterThan(0)
        expect(summary.replayed).toBeGreaterThan(0)
        const commands = commandsOf(summary)
        expect(commands.started).toBeGreaterThan(16 * 40)
        expect(commands.killsInCommand).toBeGreaterThan(0)
        expect(commands.heldInCommand).toBeGreaterThan(0)
        expect(commands.heldInCommand).toBeLessThanOrEqual(commands.killsInCommand)
        expect([commands.orphaned, commands.orphans]).toEqual([0, []])
        expect([commands.leftRunning, commands.cgroupsLeft]).toEqual([0, 0])
        yield* nothingLeft(reports)
        expect(Object.keys(JSON.parse(Soak.summaryJson(summary)))).toEqual([
          "runs",
          "kills",
          "duplicated",
          "unknown",
          "replayed",
          "commands",
          "kills_in_command",
          "held_in_command",
          "orphaned",
          "left_running",
          "cgroups_left"
        ])
      }),
    900_000
  )

  it.live(
    "kills at fixed points: every kill lands where the child holds, inside the command for some, and nothing is left",
    () =>
      Effect.gen(function* () {
        const { summary, reports } = yield* runWithReports({
          runs: 4,
          killsPerRun: 3,
          seed: 6000,
          commands: true,
          randomInstants: false
        })
        expect(summary.violations).toEqual([])
        expect(summary.kills).toBe(12)
        expect(summary.held).toBe(12)
        expect(summary.duplicated).toBe(0)
        expect(summary.unknown).toBe(summary.unfinished)
        const commands = commandsOf(summary)
        expect(commands.heldInCommand).toBeGreaterThan(0)
        expect([commands.leftRunning, commands.cgroupsLeft]).toEqual([0, 0])
        yield* nothingLeft(reports)
      }),
    600_000
  )

  it.live(
    "the soak finds what it is for: without the journal, a restart runs commands again, and that is counted",
    () =>
      Effect.gen(function* () {
        const { summary, reports } = yield* runWithReports({
          runs: 4,
          killsPerRun: 3,
          seed: 7000,
          commands: true,
          withoutJournal: true,
          keepFailed: false
        })
        expect(summary.kills).toBe(12)
        expect(summary.duplicated).toBeGreaterThan(0)
        expect(summary.unknown).toBe(0)
        expect(Soak.passed(summary)).toBe(false)
        expect(summary.violations.some((v) => /a\d+ ran [2-9] times/.test(v))).toBe(true)
        expect(summary.violations.some((v) => /its command was started again/.test(v))).toBe(true)
        expect([commandsOf(summary).leftRunning, commandsOf(summary).cgroupsLeft]).toEqual([0, 0])
        yield* nothingLeft(reports)
      }),
    600_000
  )

  it("the child's arguments: --commands, and --hold-inside only with --commands and --hold-at", () => {
    expect(SoakChild.parseArgs(["j.db", "root", "7", "--commands"])).toEqual({
      journal: "j.db",
      envdir: "root",
      seed: 7,
      commands: true
    })
    expect(SoakChild.parseArgs(["j.db", "root", "7", "--hold-inside", "--hold-at", "3", "--commands"])).toEqual({
      journal: "j.db",
      envdir: "root",
      seed: 7,
      holdAt: 3,
      commands: true,
      holdInside: true
    })
    for (const bad of [
      ["j.db", "root", "7", "--hold-inside", "--hold-at", "3"],
      ["j.db", "root", "7", "--hold-inside", "--commands"],
      ["j.db", "root", "7", "--commands", "--commands"],
      ["j.db", "root", "7", "--commands", "--hold-at", "3", "--hold-inside", "--hold-inside"]
    ]) {
      expect(SoakChild.parseArgs(bad)).toBeUndefined()
    }
  })

  it("the commands conversation: the same calls and ids, each append a sh script that appends its mark", () => {
    const plain = SoakConversation.calls(SoakConversation.conversation(7))
    const root = "/tmp/a root's folder"
    const commands = SoakConversation.calls(SoakConversation.withCommands(SoakConversation.conversation(7), root))
    expect(commands.map((c) => c.id)).toEqual(plain.map((c) => c.id))
    for (const [i, call] of commands.entries()) {
      const was = plain[i]
      if (was?.name === "append") {
        expect(call.name).toBe("command")
        expect(call.input).toEqual({
          program: "sh",
          args: ["-c", SoakConversation.commandScript(root, was.input.path, was.id)]
        })
      } else {
        expect(call).toEqual(was)
      }
    }
  })

  it("a command's script appends exactly its mark, its paths absolute and quoted; it holds only when its FIFO is there", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-soak-script-"))
    try {
      const root = nodePath.join(dir, "it's a root")
      fs.mkdirSync(root)
      const script = SoakConversation.commandScript(root, "log-2.txt", "a17")
      expect(script).toContain(root.replaceAll("'", "'\\''"))
      // Run by sh itself, outside any sandbox: only the script's words are checked here.
      for (let i = 0; i < 2; i++) {
        const r = spawnSync("/bin/sh", ["-c", script], { cwd: "/", encoding: "utf8", timeout: 10_000 })
        expect([r.status, r.stderr]).toEqual([0, ""])
      }
      expect(fs.readFileSync(nodePath.join(root, "log-2.txt"), "utf8")).toBe("[a17]\n[a17]\n")
      expect([
        ...fs.readFileSync(nodePath.join(root, "log-2.txt"), "utf8").matchAll(SoakConversation.appendMark)
      ]).toHaveLength(2)
      expect(SoakConversation.holdFifo(root, "a17")).toBe(`${root}/.soak-hold-a17`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.live(
    "the leftovers check finds a process by a marker in its command line, and a cgroup by its child's pid, and clears both",
    () =>
      Effect.gen(function* () {
        const marker = `agent-harness-soak-marker-${process.pid}-${Date.now()}`
        const child = spawn("/bin/sh", ["-c", "sleep 60", marker], { stdio: "ignore" })
        const pid = child.pid
        expect(pid).toBeTypeOf("number")
        const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-soak-cgroups-"))
        try {
          yield* Effect.sleep(100)
          const found = yield* SoakSandbox.processesWith(marker)
          expect(found.map((p) => [p.pid, p.ppid, p.dying])).toEqual([[pid, process.pid, false]])
          expect(found[0]?.args).toContain(marker)
          // A folder standing for a cgroup parent: the sandbox names each cgroup after the pid that made it.
          fs.mkdirSync(nodePath.join(dir, "agent-harness-123-1-abcdef"))
          fs.mkdirSync(nodePath.join(dir, "agent-harness-456-2-ghijkl"))
          fs.mkdirSync(nodePath.join(dir, "someone-else"))
          const cgroups = yield* SoakSandbox.cgroupsOf(dir, new Set([123]))
          expect(cgroups).toEqual([nodePath.join(dir, "agent-harness-123-1-abcdef")])
          expect(yield* SoakSandbox.clear(found, cgroups)).toEqual([])
          expect(yield* SoakSandbox.processesWith(marker)).toEqual([])
          expect(fs.readdirSync(dir).sort()).toEqual(["agent-harness-456-2-ghijkl", "someone-else"])
        } finally {
          child.kill("SIGKILL")
          fs.rmSync(dir, { recursive: true, force: true })
        }
      }),
    300_000
  )

  it.live(
    "a process that outlived its parent is told from one whose parent is dying with it",
    () =>
      Effect.gen(function* () {
        const marker = `agent-harness-soak-orphan-${process.pid}-${Date.now()}`
        // The outer shell starts the inner one in the background and exits: the inner one, its
        // parent gone, is adopted by init, and keeps running.
        const outer = spawn("/bin/sh", ["-c", `/bin/sh -c 'while :; do sleep 0.1; done' ${marker}-inner & exit 0`], {
          stdio: "ignore"
        })
        yield* Effect.promise(() => new Promise((resolve) => outer.on("close", resolve)))
        const orphans = yield* SoakSandbox.outlived(marker, new Set())
        try {
          expect(orphans.map((p) => [p.args.endsWith(`${marker}-inner`), p.dying])).toEqual([[true, false]])
          expect(orphans[0]?.ppid).not.toBe(process.pid)
        } finally {
          yield* SoakSandbox.clear(orphans, [])
        }
        expect(yield* SoakSandbox.processesWith(marker)).toEqual([])
      }),
    300_000
  )
})

const sandboxLoop = fileURLToPath(new URL("./fixtures/sandboxLoop.ts", import.meta.url))

/**
 * Starts the fixture harness over `root`, kills it `delay` ms after its first `spawn` line, and
 * waits for it to be gone; its pid.
 */
const killWhileStarting = (root: string, delay: number): Promise<number | undefined> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", sandboxLoop, root], {
      stdio: ["ignore", "pipe", "ignore"]
    })
    const stuck = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.stdout.setEncoding("utf8").once("data", () => setTimeout(() => child.kill("SIGKILL"), delay))
    child.on("close", () => {
      clearTimeout(stuck)
      resolve(child.pid)
    })
  })

describe("a harness killed while its sandbox starts (bubblewrap's --die-with-parent race, bubblewrap issue 633)", () => {
  // bwrap's --die-with-parent arms PR_SET_PDEATHSIG in bwrap only after cloning the sandbox's
  // init, and in that init only after forking the command, never checking the parent is still
  // there: on its own it leaves a sandbox running when its harness dies in the first instants
  // (this soak found it: 99 orphans in 616 kills). The command package's supervisor (armed by
  // setpriv before it starts, its parent checked, killing the cgroup when the harness dies)
  // closes the race: nothing of the sandbox may outlive its harness, and the command (a sleep,
  // then a write) must never get to write.
  it.live(
    "a harness killed in the first 12 ms of a sandbox's start leaves nothing running, and its command never finishes (40 kills)",
    () =>
      Effect.gen(function* () {
        const parent = (yield* SoakSandbox.available).processLimit
        const pids = new Set<number>()
        const outcome = yield* Effect.acquireUseRelease(
          Effect.sync(() => fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-soak-race-")))),
          (dir) =>
            Effect.gen(function* () {
              let outlived = 0
              for (let i = 0; i < 40; i++) {
                const pid = yield* Effect.promise(() => killWhileStarting(dir, (i * 0.3) % 12))
                if (pid !== undefined) pids.add(pid)
                const left = yield* SoakSandbox.outlived(dir, pids)
                if (left.length > 0) outlived += 1
                yield* SoakSandbox.clear(left, [])
              }
              // Longer than the command's own sleep: a command that survived would have written.
              yield* Effect.sleep("500 millis")
              return { outlived, wrote: fs.existsSync(nodePath.join(dir, "late.txt")) }
            }),
          // Never leave anything behind: what outlived its harness, and the killed harnesses' cgroups.
          (dir) =>
            Effect.gen(function* () {
              const left = yield* SoakSandbox.processesWith(dir)
              const cgroups = parent._tag === "Cgroup" ? yield* SoakSandbox.cgroupsOf(parent.parent, pids) : []
              yield* SoakSandbox.clear(left, cgroups)
              yield* Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
            })
        )
        expect(outcome).toEqual({ outlived: 0, wrote: false })
      }),
    600_000
  )
})
