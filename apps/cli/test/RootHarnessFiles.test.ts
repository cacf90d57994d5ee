/**
 * The model must not reach the harness's own state: `harness agent --journal/--trace/--policy` and
 * `harness mcp serve --journal/--policy` inside `--root` are refused (exit 2, naming the flag and why),
 * links resolved — nested folders, a linked folder leading into the root, a link to a file in
 * it, a dangling link that would create one there. `RootFolder.refuseInside` is tested over the
 * real disk, then each command's wiring through the CLI.
 */
import { mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as RootFolder from "../src/common/RootFolder.ts"
import { agent as runAgent } from "./fixtures/agent.ts"
import { harnessAsync } from "./fixtures/harness.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

/** Several CLI runs per test, on a loaded 2-core machine. */
const SPAWNS = { timeout: 240_000 }

const temp = tempFolder("root-harness-files")
afterAll(() => temp.remove())

// root/ (with a nested folder), outside/ (with links into root), elsewhere/.
temp.write("root/list.txt", "bread\n")
temp.write("root/sub/notes.txt", "x\n")
temp.write("outside/plain.txt", "")
temp.write("elsewhere/keep.txt", "")
const root = temp.path("root")
symlinkSync(root, temp.path("outside/into-root"))
symlinkSync(join(root, "sub"), temp.path("outside/into-sub"))
symlinkSync(join(root, "list.txt"), temp.path("outside/file-in-root"))
symlinkSync(join(root, "not-yet.db"), temp.path("outside/dangling-into-root"))
symlinkSync(temp.path("outside/loop-b"), temp.path("outside/loop-a"))
symlinkSync(temp.path("outside/loop-a"), temp.path("outside/loop-b"))
mkdirSync(temp.path("outside/deep/er"), { recursive: true })

const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/** What `refuseInside` said (the stderr line), or `accepted`. */
const verdict = async (file: string, rootFolder = root): Promise<string> => {
  const lines: Array<string> = []
  const original = console.error
  console.error = (...args: ReadonlyArray<unknown>) => void lines.push(args.map(String).join(" "))
  try {
    const exit = await Effect.runPromiseExit(
      RootFolder.refuseInside("harness agent", rootFolder, "--journal", file).pipe(Effect.provide(platform))
    )
    return Exit.isSuccess(exit) ? "accepted" : (lines[0] ?? "refused without a word")
  } finally {
    console.error = original
  }
}

describe("RootFolder.refuseInside", () => {
  it("refuses a file in the root or any folder under it, existing or not", async () => {
    for (const file of [join(root, "j.db"), join(root, "sub", "j.db"), join(root, "new", "deeper", "j.db"), root]) {
      const said = await verdict(file)
      expect(said, file).toBe(
        `harness agent: --journal ${file}: it is in --root, where the model's tools could read it or write over it; put the harness's files outside the folder`
      )
    }
    // Written relative to the working folder, or with `..` that comes back in.
    expect(await verdict(join(root, "sub", "..", "j.db"))).toContain("it is in --root")
  })

  it("refuses it through links: a linked folder into the root, a link to a file in it, a dangling link there", async () => {
    const cases = [
      [temp.path("outside/into-root/j.db"), join(root, "j.db")],
      [temp.path("outside/into-sub/j.db"), join(root, "sub", "j.db")],
      [temp.path("outside/into-root/new/j.db"), join(root, "new", "j.db")],
      [temp.path("outside/file-in-root"), join(root, "list.txt")],
      [temp.path("outside/dangling-into-root"), join(root, "not-yet.db")]
    ] as const
    for (const [file, real] of cases) {
      expect(await verdict(file), file).toBe(
        `harness agent: --journal ${file}: it is in --root (through a symbolic link: it is ${real}), where the model's tools could read it or write over it; put the harness's files outside the folder`
      )
    }
  })

  it("refuses a root given through a link too (the file named by the real path)", async () => {
    expect(await verdict(join(root, "j.db"), temp.path("outside/into-root"))).toContain(
      "it is in --root (through a symbolic link"
    )
  })

  it("accepts a file outside the root, a sibling whose name starts like it included", async () => {
    for (const file of [
      temp.path("elsewhere/j.db"),
      temp.path("outside/deep/er/j.db"),
      temp.path("root-sibling.db"),
      temp.path("rootx/j.db")
    ]) {
      assert.strictEqual(await verdict(file), "accepted", file)
    }
  })

  it("refuses a path whose links loop, saying so", async () => {
    const file = temp.path("outside/loop-a/j.db")
    assert.strictEqual(
      await verdict(file),
      `harness agent: --journal ${file}: its path cannot be resolved (a loop of symbolic links); give another`
    )
  })
})

describe("the commands", () => {
  it(
    "harness agent: --journal and --trace through a linked folder into --root exit 2, nothing sent",
    SPAWNS,
    async () => {
      const fake = await FakeProvider.start({
        apiKey: "test-key",
        anthropic: [FakeProvider.reply([Message.text("ok")])]
      })
      try {
        const agent = (args: ReadonlyArray<string>) => runAgent({ fake, args: ["--root", root, ...args, "hi"] })
        for (const flag of ["--journal", "--trace", "--policy"]) {
          for (const file of [temp.path(`outside/into-root/${flag.slice(2)}.out`), join(root, "sub", "nested.out")]) {
            const r = await agent([flag, file])
            assert.strictEqual(r.code, 2, `${flag} ${file}: ${r.stderr}`)
            expect(r.stderr).toContain(`harness agent: ${flag} ${file}: it is in --root`)
            assert.strictEqual(r.stdout, "")
          }
        }
        assert.strictEqual(fake.requestsTo("anthropic").length, 0)
        // Outside the root, the same flags run.
        const ok = await agent([
          "--journal",
          temp.path("elsewhere/calls.db"),
          "--trace",
          temp.path("elsewhere/t.jsonl")
        ])
        assert.strictEqual(ok.code, 0, ok.stderr)
      } finally {
        await fake.close()
      }
    }
  )

  it(
    "harness mcp serve: --journal inside --root, or through a link into it, exits 2; outside it serves",
    SPAWNS,
    async () => {
      const serve = (journal: string) =>
        harnessAsync(["mcp", "serve", "--tools", "files", "--root", root, "--journal", journal])
      for (const journal of [
        join(root, "calls.db"),
        join(root, "sub", "calls.db"),
        temp.path("outside/into-root/calls.db")
      ]) {
        const r = await serve(journal)
        assert.strictEqual(r.code, 2, `${journal}: ${r.stderr}`)
        expect(r.stderr).toContain(`harness mcp serve: --journal ${journal}: it is in --root`)
        assert.strictEqual(r.stdout, "")
      }
      // The policy too: a client's calls could write over it and widen the next serve's rules.
      for (const policy of [join(root, "policy.json"), temp.path("outside/into-root/policy.json")]) {
        const r = await harnessAsync(["mcp", "serve", "--tools", "files", "--root", root, "--policy", policy])
        assert.strictEqual(r.code, 2, `${policy}: ${r.stderr}`)
        expect(r.stderr).toContain(`harness mcp serve: --policy ${policy}: it is in --root`)
      }
      // stdin is closed at once: the server starts, sees the end of its input and stops (exit 0).
      const ok = await serve(temp.path("elsewhere/calls.db"))
      assert.strictEqual(ok.code, 0, ok.stderr)
    }
  )
})
