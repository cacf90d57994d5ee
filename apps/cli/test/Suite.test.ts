/**
 * `Suite` from @agent-harness/scenario on the real file system (NodeServices), which the scenario
 * package itself does not depend on.
 */
import { join } from "node:path"
import { ScenarioFile, Suite } from "@agent-harness/scenario"
import { NodeServices } from "@effect/platform-node"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { salmorejo, salmorejoEs, tempFolder, withoutId, withWrongObservation } from "./fixtures/scenarios.ts"

const temp = tempFolder("suite")
let files: {
  readonly a: string
  readonly b: string
  readonly c: string
  readonly d: string
  readonly bad: string
}

beforeAll(() => {
  files = {
    b: temp.write("tree/b.json", { ...salmorejo(), name: "b" }),
    a: temp.write("tree/a.json", { ...withWrongObservation(), name: "a" }),
    c: temp.write("tree/sub/c.json", { ...salmorejo(), name: "c", reserved: true }),
    d: temp.write("tree/sub/deeper/d.json", { ...salmorejo(), name: "d" }),
    bad: temp.write("other/bad.json", withoutId())
  }
  temp.write("tree/notes.txt", "not a scenario")
  temp.write("tree/sub/readme.md", "# not a scenario")
})

afterAll(() => temp.remove())

describe("Suite.collect", () => {
  it.effect("finds every *.json under a folder, recursively, sorted", () =>
    Effect.gen(function* () {
      const found = yield* Suite.collect([temp.path("tree")])
      assert.deepStrictEqual(found, [files.a, files.b, files.c, files.d])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("takes files as they are, merges several paths, drops duplicates and sorts", () =>
    Effect.gen(function* () {
      const found = yield* Suite.collect([files.bad, temp.path("tree/sub"), files.c, files.a])
      assert.deepStrictEqual(found, [files.bad, files.a, files.c, files.d])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a folder with no scenarios gives nothing", () =>
    Effect.gen(function* () {
      temp.write("empty/readme.txt", "")
      assert.deepStrictEqual(yield* Suite.collect([temp.path("empty")]), [])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a missing path is an InvalidScenario naming it", () =>
    Effect.gen(function* () {
      const missing = temp.path("no-such-folder")
      const error = yield* Effect.flip(Suite.collect([temp.path("tree"), missing]))
      assert.instanceOf(error, ScenarioFile.InvalidScenario)
      assert.strictEqual(error.file, missing)
      assert.strictEqual(error.path, "(file)")
      assert.strictEqual(error.problem, `cannot be read: NotFound: FileSystem.stat (${missing})`)
      assert.strictEqual(error.message, `${missing}: (file): cannot be read: NotFound: FileSystem.stat (${missing})`)
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("Suite.load and runAll", () => {
  it.effect("load decodes a file; an invalid file names itself and its first bad field", () =>
    Effect.gen(function* () {
      const scenario = yield* Suite.load(salmorejoEs)
      assert.strictEqual(scenario.name, "salmorejo (es)")
      const error = yield* Effect.flip(Suite.load(files.bad))
      assert.strictEqual(error.message, `${files.bad}: turns[2].reply[0].id: missing`)
      const unreadable = yield* Effect.flip(Suite.load(temp.path("tree/missing.json")))
      assert.strictEqual(unreadable.path, "(file)")
      assert.strictEqual(
        unreadable.problem,
        `cannot be read: NotFound: FileSystem.stat (${join(temp.root, "tree/missing.json")})`
      )
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("runAll gives one entry per file, in order: verdicts, or why the file is invalid", () =>
    Effect.gen(function* () {
      const entries = yield* Suite.runAll([files.a, files.bad, files.c])
      assert.strictEqual(entries.length, 3)
      const [a, bad, c] = entries
      assert.isTrue(a !== undefined && Result.isSuccess(a))
      assert.isTrue(bad !== undefined && Result.isFailure(bad))
      assert.isTrue(c !== undefined && Result.isSuccess(c))
      if (a === undefined || !Result.isSuccess(a) || c === undefined || !Result.isSuccess(c)) return
      if (bad === undefined || !Result.isFailure(bad)) return
      assert.deepStrictEqual(
        [a.success.name, a.success.passed, a.success.reserved, a.success.file],
        ["a", false, false, files.a]
      )
      assert.deepStrictEqual(
        a.success.failures.map((f) => [f.kind, f.turn, f.tool_use_id]),
        [["divergence", 2, "t2"]]
      )
      assert.strictEqual(bad.failure.path, "turns[2].reply[0].id")
      assert.deepStrictEqual([c.success.name, c.success.passed, c.success.reserved], ["c", true, true])
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
