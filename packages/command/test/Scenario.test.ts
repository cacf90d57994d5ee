/**
 * `@agent-harness/command/scenario`: the scenario package's `Commands` over the real bubblewrap
 * sandbox, as `harness test` runs scenario files. The CLI's shipped commands scenario through
 * `scenarioTests` with this layer and `TreeRoots`'; edited copies pinning what the declaration
 * gives a command (its variables over the defaults, its timeout, the shell tool only when asked,
 * the Spanish tools, no network), the fixture never written (the commands work on the run's copy),
 * a root that is a symbolic link refused and a link inside the root leading nowhere outside;
 * a host with no bubblewrap refusing the file with why and the fix; a scenario without commands
 * never loading the command package (the CLI's built chunks are checked in apps/cli).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import process from "node:process"
import { Commands } from "@agent-harness/scenario"
import * as TreeRoots from "@agent-harness/scenario/TreeRoots"
import { scenarioTests } from "@agent-harness/testing/vitest"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { copies, type Json, report, shipped } from "../../testing/test/fixtures/shipped.ts"
import { Sandbox } from "../src/index.ts"
import * as CommandScenario from "../src/Scenario.ts"
import { timeout } from "./fixtures.ts"

const layer = Layer.mergeAll(CommandScenario.layer, TreeRoots.layer)
const folder = path.join(shipped, "commands")
const countLines = path.join(folder, "count-lines.json")
const temp = copies("command-scenarios")

/** The shipped scenario's copy whose first turn runs `input` (a `command` call) and must show `content`. */
const firstCall = (
  name: string,
  edit: (json: Json) => void,
  call: { readonly name: string; readonly input: unknown },
  expected: { readonly is_error: boolean; readonly content: string }
): string =>
  temp.edited(countLines, name, (json) => {
    edit(json)
    json.turns = [
      {
        reply: [{ type: "tool_use", id: "c1", name: call.name, input: call.input }],
        expect: [{ type: "tool_result", tool_use_id: "c1", ...expected }]
      },
      { reply: [{ type: "text", text: "done" }] }
    ]
    json.outcome = { stop: "end", text: "done" }
  })

const PASS = "PASS a command that fails is read from its stderr, then one that works writes a file in the root"

describe("apps/cli/scenarios/commands, with @agent-harness/command/scenario", () => {
  const registered = scenarioTests(folder, { layer, timeout })

  it("registers the shipped scenario by its name", () => {
    expect(registered.map((e) => e.title)).toStrictEqual([
      "a command that fails is read from its stderr, then one that works writes a file in the root"
    ])
  })

  it("passes as harness test reports it; the fixture is never written (the commands run on the copy)", {
    timeout
  }, async () => {
    expect(await report(countLines, layer)).toBe(`${PASS} (end, 4 model calls)`)
    expect(fs.readdirSync(path.join(folder, "project"))).toStrictEqual(["notes.txt"])
  })

  it("the declared variables are set over the defaults; nothing of the harness's environment gets in", {
    timeout
  }, async () => {
    process.env.HARNESS_SECRET_FOR_TEST = "leaked"
    try {
      const file = firstCall(
        "env",
        (json) => {
          json.commands = { env: { LC_ALL: "C", GREETING: "hola mundo", HOME: "/tmp/home" } }
        },
        {
          name: "command",
          input: {
            program: "sh",
            args: ["-c", 'echo "$GREETING|$HOME|$LANG|$LC_ALL"; printenv HARNESS_SECRET_FOR_TEST || echo none']
          }
        },
        { is_error: false, content: "exit code 0\nstdout:\nhola mundo|/tmp/home|C.UTF-8|C\nnone\nstderr: (empty)" }
      )
      expect(await report(file, layer)).toBe(
        "PASS a command that fails is read from its stderr, then one that works writes a file in the root (end, 2 model calls)"
      )
    } finally {
      delete process.env.HARNESS_SECRET_FOR_TEST
    }
  })

  it("timeout_ms bounds a command: killed at it, the outcome unknown", { timeout }, async () => {
    const file = firstCall(
      "timeout",
      (json) => {
        json.commands = { timeout_ms: 300 }
      },
      { name: "command", input: { program: "sleep", args: ["30"] } },
      {
        is_error: true,
        content:
          "timed out after 0.3 s: the command and every process it started were killed; it may have done part of its work (outcome unknown: do not repeat it blindly unless it is idempotent)\nstdout: (empty)\nstderr: (empty)"
      }
    )
    const started = Date.now()
    expect(await report(file, layer)).toMatch(/^PASS /)
    expect(Date.now() - started).toBeLessThan(20_000)
  })

  it("a file's bounds are the sandbox's: the least memory_bytes is the least maxMemoryBytes", () => {
    expect(Commands.minMemoryBytes).toBe(Sandbox.minMemoryBytes)
  })

  it("memory_bytes bounds each process: a shell holding 64 MB under 32 MiB fails, a failed call", {
    timeout
  }, async () => {
    const file = firstCall(
      "memory",
      (json) => {
        json.commands = { memory_bytes: 32 * 1024 * 1024 }
      },
      {
        name: "command",
        input: { program: "sh", args: ["-c", "x=$(head -c 64000000 /dev/zero | tr '\\0' a); echo held"] }
      },
      // The shell dies of SIGSEGV when its allocation is refused: 128 + 11.
      { is_error: true, content: "exit code 139\nstdout: (empty)\nstderr: (empty)" }
    )
    expect(await report(file, layer)).toMatch(/^PASS /)
  })

  it("the shell tool only when declared; the Spanish tools with locale es", { timeout }, async () => {
    const noShell = firstCall(
      "no-shell",
      (json) => {
        json.commands = {}
      },
      { name: "shell", input: { line: "echo hi" } },
      { is_error: true, content: "not executed: unknown tool 'shell'" }
    )
    expect(await report(noShell, layer)).toMatch(/^PASS /)
    const spanish = firstCall(
      "spanish",
      (json) => {
        json.locale = "es"
        json.commands = { shell: true, env: { LC_ALL: "C" } }
      },
      { name: "consola", input: { línea: "wc -l < notes.txt; ls no-hay 2>&1 >/dev/null; exit 2" } },
      {
        is_error: true,
        content:
          "código de salida 2\nstdout:\n3\nls: cannot access 'no-hay': No such file or directory\nstderr: (vacío)"
      }
    )
    expect(await report(spanish, layer)).toMatch(/^PASS /)
  })

  it("no network unless declared", { timeout }, async () => {
    const file = firstCall(
      "network",
      (json) => {
        json.commands = { shell: true }
      },
      { name: "shell", input: { line: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '" } },
      { is_error: false, content: "exit code 0\nstdout:\nlo\nstderr: (empty)" }
    )
    expect(await report(file, layer)).toMatch(/^PASS /)
  })

  it("a root that is a symbolic link is refused at root; a link inside the root leads nowhere outside", {
    timeout
  }, async () => {
    const linked = temp.edited(countLines, "linked-root", () => {})
    const base = path.dirname(linked)
    fs.renameSync(path.join(base, "project"), path.join(base, "real"))
    fs.symlinkSync("real", path.join(base, "project"))
    expect(await report(linked, layer)).toBe(
      `INVALID ${linked}: root: "project" is a symbolic link: a root is a real folder (links are never followed)`
    )
    const secret = path.join(temp.root, "outside-secret")
    fs.mkdirSync(secret)
    fs.writeFileSync(path.join(secret, "key.txt"), "secret\n")
    const escaping = firstCall(
      "link-inside",
      (json) => {
        json.commands = { shell: true, env: { LC_ALL: "C" } }
      },
      { name: "shell", input: { line: "cat out/key.txt || echo unreadable" } },
      {
        is_error: false,
        content: `exit code 0\nstdout:\nunreadable\nstderr:\ncat: out/key.txt: No such file or directory`
      }
    )
    fs.symlinkSync(secret, path.join(path.dirname(escaping), "project", "out"))
    expect(await report(escaping, layer)).toMatch(/^PASS /)
  })

  it("an environment near the format's limit reaches the command whole", { timeout }, async () => {
    const big = "x".repeat(Commands.maxEnvBytes - 200)
    const file = firstCall(
      "big-env",
      (json) => {
        json.commands = { env: { BIG: big } }
      },
      { name: "command", input: { program: "sh", args: ["-c", 'printf %s "$BIG" | wc -c'] } },
      { is_error: false, content: `exit code 0\nstdout:\n${big.length}\nstderr: (empty)` }
    )
    expect(await report(file, layer)).toMatch(/^PASS /)
  })
})

describe("a host where no sandbox can run", () => {
  it("refuses the file with why and the fix (never runs it unsandboxed)", { timeout }, async () => {
    const before = process.env.PATH
    const empty = fs.mkdtempSync(path.join(temp.root, "no-bin-"))
    process.env.PATH = empty
    try {
      expect(await report(countLines, layer)).toBe(
        `INVALID ${countLines}: commands: the command sandbox is unavailable: bwrap is not installed: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), or give the path of bwrap; a scenario that declares commands never runs them unsandboxed`
      )
    } finally {
      process.env.PATH = before
    }
  })

  it.effect("tools over a root the sandbox refuses say so, at commands", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(CommandScenario.commands.tools({}, "/usr", "en"))
      expect(error.message).toBe(
        "commands: the sandbox refuses its option 'root': must not be /usr or a folder holding it (the system must stay read-only), got /usr"
      )
    })
  )
})
