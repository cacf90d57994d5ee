/**
 * A conversation scenario's `root` through the CLI (`ScenarioRoots`, over `TreeFiles`): the
 * shipped example passes and leaves its fixture as it was; every run works on a fresh copy (an
 * append expected once passes twice, in `harness test` and `harness run`); `outcome.files` is
 * the copy's tree (ignored files left out); a root that cannot be used is INVALID, exit 2, at
 * `root` (no such folder, a file, a link, a link on the way, outside the scenario's folder, the
 * scenario's own folder, both `root` and `files`); a FIFO in the tree fails the run naming it,
 * without waiting on it.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { harness } from "./fixtures/harness.ts"
import { type Json, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

/** A few CLI runs per test, on a loaded 2-core machine. */
const SPAWNS = { timeout: 180_000 }

const temp = tempFolder("scenario-root")
afterAll(() => temp.remove())

/** Every file under a folder with its content (hidden and ignored ones included). */
const tree = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out[join(entry.parentPath, entry.name).slice(root.length + 1)] = readFileSync(
        join(entry.parentPath, entry.name),
        "utf8"
      )
  }
  return out
}

/** Appends `b` to `list.txt` of its root and expects the tree to be exactly `a`, `b` (and the ignore file). */
const appending = (root: unknown, extra: Json = {}): Json => ({
  format: 1,
  kind: "conversation",
  root,
  turns: [
    {
      reply: [{ type: "tool_use", id: "c1", name: "append", input: { path: "list.txt", content: "b\n" } }],
      expect: [
        { type: "tool_result", tool_use_id: "c1", is_error: false, content: "appended 2 characters to list.txt" }
      ]
    },
    { reply: [{ type: "text", text: "done" }] }
  ],
  outcome: { stop: "end", text: "done", files: { ".gitignore": "*.tmp\n", "list.txt": "a\nb\n" } },
  ...extra
})

describe("scenario root: running", () => {
  it("the shipped example passes and its fixture is left as it was", SPAWNS, async () => {
    const fixture = join(scenariosDir, "root", "project")
    const before = tree(fixture)
    // The ignored files are in the fixture, so the example shows they are neither listed nor searched.
    expect(Object.keys(before)).toContain("generated/bundle.txt")
    expect(Object.keys(before)).toContain("debug.log")
    const r = harness(["run", join(scenariosDir, "root", "real-folder.json")])
    assert.strictEqual(r.code, 0, r.stdout + r.stderr)
    assert.deepStrictEqual(tree(fixture), before)
  })

  it("each run works on a fresh copy; outcome.files is the copy's tree, ignored files left out", SPAWNS, async () => {
    temp.write("suite/fixture/list.txt", "a\n")
    temp.write("suite/fixture/.gitignore", "*.tmp\n")
    temp.write("suite/fixture/scratch.tmp", "ignored\n")
    temp.write("suite/one.json", appending("fixture"))
    temp.write("suite/two.json", appending("./fixture/"))
    const test = harness(["test", temp.path("suite")])
    assert.strictEqual(test.code, 0, test.stdout + test.stderr)
    expect(test.stdout).toContain("2 passed, 0 failed")
    const again = harness(["run", temp.path("suite/one.json")])
    assert.strictEqual(again.code, 0, again.stdout + again.stderr)
    assert.deepStrictEqual(tree(temp.path("suite/fixture")), {
      ".gitignore": "*.tmp\n",
      "list.txt": "a\n",
      "scratch.tmp": "ignored\n"
    })
  })

  it("a link in the tree is copied as a link, which the tools refuse by name and list leaves out", SPAWNS, async () => {
    temp.write("links/fixture/list.txt", "a\n")
    temp.write("links/outside/secret.txt", "the secret\n")
    symlinkSync("../outside/secret.txt", temp.path("links/fixture/secret.txt"))
    const file = temp.write("links/s.json", {
      format: 1,
      kind: "conversation",
      root: "fixture",
      turns: [
        {
          reply: [
            { type: "tool_use", id: "c1", name: "read", input: { path: "secret.txt" } },
            { type: "tool_use", id: "c2", name: "list", input: { folder: "" } },
            { type: "tool_use", id: "c3", name: "search", input: { pattern: "secret" } }
          ],
          expect: [
            {
              type: "tool_result",
              tool_use_id: "c1",
              is_error: true,
              content: "not executed: 'secret.txt' is a symbolic link, and links are not followed"
            },
            { type: "tool_result", tool_use_id: "c2", is_error: false, content: "list.txt" },
            { type: "tool_result", tool_use_id: "c3", is_error: false, content: "" }
          ]
        },
        { reply: [{ type: "text", text: "done" }] }
      ],
      outcome: { stop: "end", files: { "list.txt": "a\n" } }
    })
    const r = harness(["run", file])
    assert.strictEqual(r.code, 0, r.stdout + r.stderr)
  })

  it("a FIFO in the tree fails the run naming it, without waiting on it", SPAWNS, async () => {
    temp.write("fifo/fixture/list.txt", "a\n")
    execFileSync("mkfifo", [temp.path("fifo/fixture/pipe")])
    const file = temp.write("fifo/s.json", appending("fixture"))
    const r = harness(["run", file])
    assert.strictEqual(r.code, 1, r.stdout + r.stderr)
    expect(r.stdout).toContain("root: fixture/pipe: it is a FIFO (named pipe), which a root folder cannot hold")
  })
})

describe("scenario root: a root that cannot be used is INVALID at root, exit 2", () => {
  it(
    "no such folder, a file, a link, a link on the way, outside, the file's own folder, with files",
    SPAWNS,
    async () => {
      temp.write("bad/real/list.txt", "a\n")
      temp.write("bad/real/inner/list.txt", "a\n")
      temp.write("bad/afile.txt", "x\n")
      temp.write("outside/list.txt", "a\n")
      symlinkSync(temp.path("bad/real"), temp.path("bad/linked"))
      mkdirSync(temp.path("bad/via"))
      symlinkSync(temp.path("bad/real"), temp.path("bad/via/step"))
      const cases: ReadonlyArray<readonly [unknown, string, Json?]> = [
        ["missing", `root: no such folder: "missing" (from the scenario file's folder)`],
        ["afile.txt", `root: "afile.txt" is a regular file, not a folder`],
        ["linked", `root: "linked" is a symbolic link: a root is a real folder (links are never followed)`],
        [
          "via/step/inner",
          `root: a folder on the way to "via/step/inner" is a symbolic link: a root is a real folder (links are never followed)`
        ],
        [
          "../outside",
          `root: "../outside" is outside the scenario file's folder: a root is a folder next to the file, so the suite carries its fixtures`
        ],
        [".", "root: it is the scenario file's own folder: give a folder inside it"],
        ["real", `root: the files come from the "root" folder or from "files", not both: remove one`, { files: {} }],
        [
          temp.path("bad/real"),
          `root: expected a folder relative to the scenario file's folder, got the absolute path ${JSON.stringify(temp.path("bad/real"))}`
        ],
        [7, "root: expected string, got 7"]
      ]
      for (const [i, [root, problem, extra]] of cases.entries()) {
        const file = temp.write(`bad/case-${i}.json`, appending(root, extra))
        const r = harness(["run", file])
        assert.strictEqual(r.code, 2, `${String(root)}: ${r.stdout}${r.stderr}`)
        expect(r.stdout + r.stderr, String(root)).toContain(`${file}: ${problem}`)
      }
    }
  )
})
