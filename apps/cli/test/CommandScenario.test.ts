/**
 * A scenario that declares the sandboxed command tool, through the `harness` CLI (spawned, real
 * bubblewrap): the shipped `commands/count-lines.json` passes with `harness run` and `harness
 * test`, on the local and the Postgres engine, and under Deno with `-A` (the same output as
 * Node; without it the file is refused saying so); an edited copy fails naming the call; bad
 * declarations and a host with no bubblewrap are exit 2 with the path and the fix. Capture:
 * the trace of `harness run --trace` and of `harness agent --commands --trace` becomes, with
 * `CaptureRoot.checked` (what `harness capture --out` runs for such a trace), a scenario over a
 * root folder written next to it, which `harness run` then passes.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as CaptureRoot from "../src/scenarios/CaptureRoot.ts"
import * as ScenarioServices from "../src/scenarios/ScenarioServices.ts"
import { agentArgs, anthropicEnv, freshRoots } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { harness, harnessAsync } from "./fixtures/harness.ts"
import { demoDir, type Json, loadJson, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

/** Each test spawns the CLI (and bubblewrap) a few times, on a loaded 2-core machine. */
const SPAWNS = { timeout: 180_000 }
const spawn = { timeout: 120_000 }

const temp = tempFolder("command-scenario")
afterAll(() => temp.remove())

const folder = join(scenariosDir, "commands")
const countLines = join(folder, "count-lines.json")
const PASS = "PASS a command that fails is read from its stderr, then one that works writes a file in the root"

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: "1", ...extra })

/** A copy of the shipped scenario's folder in `name`, the file edited by `edit`: the copy's path. */
const edited = (name: string, edit: (json: Json) => void): string => {
  const json = loadJson(countLines)
  edit(json)
  temp.write(`${name}/project/notes.txt`, readFileSync(join(folder, "project", "notes.txt"), "utf8"))
  return temp.write(`${name}/count-lines.json`, json)
}

describe("a scenario with commands, through harness run and harness test", () => {
  it("the shipped one passes; the fixture is never written; --json gives its verdict", SPAWNS, () => {
    const run = harness(["run", countLines], env(), spawn)
    assert.deepStrictEqual([run.code, run.stdout, run.stderr], [0, `${PASS} (end, 4 model calls)\n`, ""])
    const test = harness(["test", folder], env(), spawn)
    assert.strictEqual(test.code, 0, test.stderr)
    assert.deepStrictEqual(test.lines, [`${PASS} (end, 4 model calls)`, "1 passed, 0 failed"])
    const json = harness(["run", countLines, "--json"], env(), spawn)
    const verdict = JSON.parse(json.stdout) as { passed: boolean; outcome: { files: Record<string, string> } }
    assert.isTrue(verdict.passed)
    assert.deepStrictEqual(verdict.outcome.files, {
      "count.txt": "3\n",
      "notes.txt": "buy bread\ncall Ana\nwater the plants\n"
    })
    expect(readdirSync(join(folder, "project"))).toStrictEqual(["notes.txt"])
  })

  it("a copy that expects another stderr fails (exit 1), naming the turn and the call", SPAWNS, () => {
    const file = edited("wrong-stderr", (json) => {
      const turns = json.turns as Array<{ expect: Array<{ content: string }> }>
      const first = turns[0]?.expect[0]
      if (first !== undefined) first.content = "exit code 1\nstdout: (empty)\nstderr:\nsomething else"
    })
    const r = harness(["run", file], env(), spawn)
    assert.strictEqual(r.code, 1, r.stderr)
    expect(r.stdout).toMatch(/^FAIL .*\n {4}turn 1, tool_use_id c1: a different observation/)
    expect(r.stdout).toContain("wc: note.txt: No such file or directory")
  })

  it("bad declarations are exit 2 at their path; nothing runs", SPAWNS, () => {
    const noRoot = edited("no-root", (json) => {
      delete json.root
    })
    const r = harness(["run", noRoot], env(), spawn)
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `INVALID ${noRoot}: commands: needs root: the commands run in a real folder (add "root", a folder next to this file, copied afresh for each run)\n`
    )
    const badName = edited("bad-name", (json) => {
      json.commands = { env: { "MY-KEY": "x" } }
    })
    const bad = harness(["test", badName], env(), spawn)
    assert.strictEqual(bad.code, 2)
    expect(bad.stdout).toContain(
      `INVALID ${badName}: commands.env["MY-KEY"]: "MY-KEY" is not a variable name: letters, digits and _, not starting with a digit`
    )
    const camel = edited("camel", (json) => {
      json.commands = { timeoutMs: 1000 }
    })
    expect(harness(["run", camel], env(), spawn).stderr).toBe(
      `INVALID ${camel}: commands.timeoutMs: unexpected field\n`
    )
  })

  it("a host with no bubblewrap refuses the file (exit 2) with why and the fix, never runs it", SPAWNS, () => {
    const empty = temp.path("no-bin")
    mkdirSync(empty, { recursive: true })
    const r = harness(["run", countLines], env({ PATH: empty }), spawn)
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `INVALID ${countLines}: commands: the command sandbox is unavailable: bwrap is not installed: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), or give the path of bwrap; a scenario that declares commands never runs them unsandboxed\n`
    )
  })
})

describe("under Deno", () => {
  const deno = join(demoDir, "../../node_modules/.bin/deno")
  const denoRun = (permissions: ReadonlyArray<string>) =>
    spawnSync(deno, ["run", ...permissions, "src/main.ts", "run", countLines], {
      cwd: demoDir,
      encoding: "utf8",
      timeout: 120_000,
      killSignal: "SIGKILL",
      env: env({ DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" })
    })

  it("with -A: the same output and exit code as Node; without it, refused saying which flag", SPAWNS, () => {
    const node = harness(["run", countLines], env(), spawn)
    const all = denoRun(["-A"])
    assert.deepStrictEqual([all.status, all.stdout, all.stderr], [node.code, node.stdout, node.stderr])
    // Narrower permissions than `pnpm harness:deno`'s -A: the sandbox cannot read what it needs.
    const some = denoRun(["--allow-read", "--allow-write", "--allow-env", "--allow-net=127.0.0.1", "--allow-run"])
    assert.strictEqual(some.status, 2)
    expect(some.stderr).toContain(
      `INVALID ${countLines}: commands: the command sandbox cannot be set up under Deno without its permissions (NotCapable)`
    )
    expect(some.stderr).toContain("run deno with -A")
  })
})

describe("on the Postgres engine", () => {
  const urlOr = Testing.suiteDatabase({ beforeAll, afterAll }, 180_000).url

  it("harness run and test: the same report and exit code as the local engine", SPAWNS, (ctx) => {
    const url = urlOr(ctx)
    const local = harness(["run", countLines], env(), spawn)
    const durable = harness(["run", countLines, "--engine", "postgres", "--database-url", url], env(), spawn)
    assert.deepStrictEqual([durable.code, durable.stdout, durable.stderr], [local.code, local.stdout, local.stderr])
    const tested = harness(["test", folder, "--json", "--engine", "postgres", "--database-url", url], env(), spawn)
    const lines = harness(["test", folder, "--json"], env(), spawn).lines
    assert.deepStrictEqual([tested.code, tested.lines], [0, lines])
  })
})

/** Captures a trace as `harness capture --out` does for a run with commands (`CaptureRoot.checked`). */
const captureRooted = (trace: string, out: string) =>
  Effect.runPromise(
    CaptureRoot.checked(trace, readFileSync(trace, "utf8"), out).pipe(Effect.provide(ScenarioServices.layer))
  )

describe("capture of a run with commands", () => {
  it(
    "harness run --trace → a scenario over a root folder next to it, with commands → harness run passes",
    SPAWNS,
    async () => {
      const trace = temp.path("run.jsonl")
      assert.strictEqual(harness(["run", countLines, "--trace", trace], env(), spawn).code, 0)
      const out = temp.path("captured/run.json")
      mkdirSync(temp.path("captured"), { recursive: true })
      const captured = await captureRooted(trace, out)
      assert.strictEqual(captured.root, "run.root")
      assert.deepStrictEqual(captured.commands, {
        shell: true,
        network: false,
        env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/tmp", LANG: "C.UTF-8", LC_ALL: "C" },
        timeout_ms: 20000,
        memory_bytes: 4 * 1024 ** 3
      })
      assert.strictEqual(
        readFileSync(temp.path("captured/run.root/notes.txt"), "utf8"),
        "buy bread\ncall Ana\nwater the plants\n"
      )
      expect(readdirSync(temp.path("captured/run.root"))).toStrictEqual(["notes.txt"])
      temp.write("captured/run.json", captured as Json)
      const replayed = harness(["run", out], env(), spawn)
      assert.strictEqual(replayed.code, 0, replayed.stdout + replayed.stderr)
      expect(replayed.stdout).toMatch(/^PASS captured from run\.jsonl \(end, 4 model calls\)/)
      // Never over an existing folder, never without --out.
      const again = await Effect.runPromise(
        Effect.flip(
          CaptureRoot.checked(trace, readFileSync(trace, "utf8"), out).pipe(Effect.provide(ScenarioServices.layer))
        )
      )
      expect(again.problem).toMatch(
        /run\.root exists: the scenario's root folder goes there, and capture never overwrites/
      )
      const nowhere = await Effect.runPromise(
        Effect.flip(
          CaptureRoot.checked(trace, readFileSync(trace, "utf8"), undefined).pipe(
            Effect.provide(ScenarioServices.layer)
          )
        )
      )
      expect(nowhere.problem).toMatch(/^the run had commands, which replay only over a real folder: give --out FILE/)
    }
  )

  it("hostile paths in the trace's files are refused; nothing is written outside the root", SPAWNS, async () => {
    const trace = temp.path("hostile.jsonl")
    assert.strictEqual(harness(["run", countLines, "--trace", trace], env(), spawn).code, 0)
    for (const [i, path] of ["../escape.txt", "/etc/escape.txt", "a/../../escape.txt", "a//b.txt"].entries()) {
      const lines = readFileSync(trace, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Json)
        .map((e) => (e.type === "trace.annotated" && e.key === "files" ? { ...e, value: { [path]: "x" } } : e))
      const edited = temp.write(`hostile-${i}.jsonl`, lines.map((e) => JSON.stringify(e)).join("\n"))
      mkdirSync(temp.path(`hostile-${i}`), { recursive: true })
      const refused = await Effect.runPromise(
        Effect.flip(
          CaptureRoot.checked(edited, readFileSync(edited, "utf8"), temp.path(`hostile-${i}/out.json`)).pipe(
            Effect.provide(ScenarioServices.layer)
          )
        )
      )
      assert.strictEqual(
        refused.problem,
        `the run's files: ${JSON.stringify(path)} is not a path inside the root folder`,
        path
      )
      assert.isFalse(existsSync(temp.path(`hostile-${i}/out.root`)))
    }
    assert.isFalse(existsSync(temp.path("escape.txt")))
  })

  const start = fakeProviders()
  it("harness agent --commands --trace → captured over its root → harness run replays it", SPAWNS, async () => {
    const fake = await start({
      anthropic: [
        FakeProvider.reply([Message.toolUse("toolu_1", "command", { program: "cat", args: ["missing.txt"] })]),
        FakeProvider.reply([
          Message.toolUse("toolu_2", "command", { program: "sh", args: ["-c", "sort list.txt > sorted.txt"] })
        ]),
        FakeProvider.reply([Message.text("Sorted.")])
      ]
    })
    const root = freshRoots(temp, "milk\nbread\n")()
    const policy = temp.write("allow.json", {
      rules: [{ tool: ["command", "read"], decision: "allow" }],
      default: "deny"
    })
    const trace = temp.path("agent.jsonl")
    const r = await harnessAsync(
      [
        ...agentArgs(fake),
        "--root",
        root,
        "--policy",
        policy,
        "--commands",
        "--command-env",
        "LC_ALL=C",
        "--no-stream",
        "--trace",
        trace,
        "Sort the list"
      ],
      anthropicEnv(),
      spawn
    )
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(readFileSync(join(root, "sorted.txt"), "utf8"), "bread\nmilk\n")
    mkdirSync(temp.path("agent-captured"), { recursive: true })
    const out = temp.path("agent-captured/sort.json")
    const captured = await captureRooted(trace, out)
    assert.strictEqual(captured.root, "sort.root")
    assert.deepStrictEqual((captured.commands as Json | undefined)?.shell, false)
    assert.deepStrictEqual(readdirSync(temp.path("agent-captured/sort.root")), ["list.txt"])
    temp.write("agent-captured/sort.json", captured as Json)
    const replayed = harness(["run", out], env(), spawn)
    assert.strictEqual(replayed.code, 0, replayed.stdout + replayed.stderr)
    expect(replayed.stdout).toMatch(/^PASS captured from agent\.jsonl \(end, 3 model calls\)/)
    assert.isFalse(existsSync(temp.path("agent-captured/sort.root/sorted.txt")))
  })
})
