/**
 * The `Roots` over the real folder tree (`@agent-harness/scenario/TreeRoots`), on its own: each
 * `open` is a fresh copy (writes never reach the fixture nor the next copy), removed when its
 * scope closes; a link is copied as a link, never followed; a FIFO fails the copy naming it,
 * without waiting on it; `check` refuses a folder outside the scenario's and the scenario's own;
 * the copy's real path comes with it, for the commands a scenario declares.
 * The CLI's tests run the same service through `harness test` (apps/cli/test/ScenarioRoot.test.ts).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import process from "node:process"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import * as TreeRoots from "../src/TreeRoots.ts"

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-harness-tree-roots-"))
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }))

/** A suite folder with a scenario file and a `fixture` root holding `list.txt`. */
const suite = (name: string): string => {
  fs.mkdirSync(path.join(temp, name, "fixture"), { recursive: true })
  fs.writeFileSync(path.join(temp, name, "fixture", "list.txt"), "a\n")
  return path.join(temp, name, "s.json")
}

/** The problem `check` or `open` fails with (one that succeeds fails the test). */
const problemOf = <A, R>(effect: Effect.Effect<A, { readonly problem: string }, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.problem)

describe("TreeRoots.roots", () => {
  it.effect("the copy's real path comes with its files (where a scenario's commands run), gone after", () =>
    Effect.gen(function* () {
      const file = suite("folder")
      const folder = yield* Effect.scoped(
        Effect.gen(function* () {
          const opened = yield* TreeRoots.roots.open("fixture", file)
          const folder = opened.folder ?? ""
          assert.isTrue(path.isAbsolute(folder))
          assert.strictEqual(fs.realpathSync(folder), folder)
          // A file written in the folder (as a command would) is the file tools' too.
          fs.writeFileSync(path.join(folder, "made.txt"), "by a command\n")
          assert.deepStrictEqual(yield* opened.read("made.txt"), Option.some("by a command\n"))
          assert.deepStrictEqual(yield* opened.snapshot, { "list.txt": "a\n", "made.txt": "by a command\n" })
          return folder
        })
      )
      assert.isFalse(fs.existsSync(folder))
      assert.isFalse(fs.existsSync(path.join(temp, "folder", "fixture", "made.txt")))
    })
  )

  it.effect("each open is a fresh copy, removed when its scope closes; the fixture is never written", () =>
    Effect.gen(function* () {
      const file = suite("fresh")
      // The copies go to the temporary folder: this test's own, so that no other run's are seen.
      const copies = path.join(temp, "tmp")
      fs.mkdirSync(copies)
      const before = process.env.TMPDIR
      process.env.TMPDIR = copies
      const restore = Effect.sync(() => {
        if (before === undefined) delete process.env.TMPDIR
        else process.env.TMPDIR = before
      })
      yield* Effect.ensuring(
        Effect.scoped(
          Effect.gen(function* () {
            const files = yield* TreeRoots.roots.open("fixture", file)
            yield* files.append("list.txt", "b\n")
            assert.deepStrictEqual(yield* files.read("list.txt"), Option.some("a\nb\n"))
            assert.strictEqual(fs.readdirSync(copies).length, 1)
          })
        ),
        restore
      )
      assert.deepStrictEqual(fs.readdirSync(copies), [])
      assert.strictEqual(fs.readFileSync(path.join(temp, "fresh", "fixture", "list.txt"), "utf8"), "a\n")
      const again = yield* Effect.scoped(
        Effect.flatMap(TreeRoots.roots.open("fixture/", file), (files) => files.read("list.txt"))
      )
      assert.deepStrictEqual(again, Option.some("a\n"))
    })
  )

  it.effect("a link is copied as a link, which the files refuse; a FIFO fails naming it", () =>
    Effect.gen(function* () {
      const file = suite("special")
      fs.writeFileSync(path.join(temp, "special", "secret.txt"), "the secret\n")
      fs.symlinkSync("../secret.txt", path.join(temp, "special", "fixture", "secret.txt"))
      const read = yield* Effect.scoped(
        Effect.flatMap(TreeRoots.roots.open("fixture", file), (files) => Effect.exit(files.read("secret.txt")))
      )
      assert.isTrue(Exit.isFailure(read))
      execFileSync("mkfifo", [path.join(temp, "special", "fixture", "pipe")])
      const problem = yield* problemOf(Effect.scoped(TreeRoots.roots.open("fixture", file)))
      assert.strictEqual(problem, "fixture/pipe: it is a FIFO (named pipe), which a root folder cannot hold")
    })
  )

  it.effect("check refuses the scenario's own folder and one outside it, and passes the fixture", () =>
    Effect.gen(function* () {
      const file = suite("checked")
      yield* TreeRoots.roots.check("fixture", file)
      assert.strictEqual(
        yield* problemOf(TreeRoots.roots.check(".", file)),
        "it is the scenario file's own folder: give a folder inside it"
      )
      assert.match(yield* problemOf(TreeRoots.roots.check("../fresh", file)), /is outside the scenario file's folder/)
    })
  )
})
