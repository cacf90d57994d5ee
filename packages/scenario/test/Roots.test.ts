/**
 * Conversation scenarios that declare a `root` folder: decoding (not with inline `files`, never
 * an absolute path), `Suite.load` refusing it without a `Roots` service or when the service
 * says the folder cannot be used (at `root`), and the run over the copy the service opens (the
 * copy's files on the trace and in `outcome.files`, the copy closed after the run, a copy that
 * cannot be made failing the verdict with nothing run). The service here is a fake over memory:
 * the real one (`TreeRoots`, over TreeFiles) is tested in TreeRoots.test.ts and through the CLI.
 */
import { Trace } from "@agent-harness/executor"
import { Files } from "@agent-harness/file-tools"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Conversation, Roots, type ScenarioFile, Suite } from "../src/index.ts"
import { decodeConversation, type Json, oneFileDisk, problemOf } from "./fixtures/files.ts"

const FILE = "cases/root.json"

/** Reads `src/app/main.ts`, writes `notes/new.txt`, ends. */
const conversation = (extra: Json = {}): Json => ({
  format: 1,
  kind: "conversation",
  root: "fixtures/project",
  turns: [
    {
      reply: [
        { type: "tool_use", id: "c1", name: "read", input: { path: "src/app/main.ts" } },
        { type: "tool_use", id: "c2", name: "write", input: { path: "notes/new.txt", content: "hi" } }
      ],
      expect: [
        { type: "tool_result", tool_use_id: "c1", is_error: false, content: "main();" },
        { type: "tool_result", tool_use_id: "c2", is_error: false, content: { pattern: "notes/new\\.txt" } }
      ]
    },
    { reply: [{ type: "text", text: "done" }] }
  ],
  outcome: { stop: "end", text: "done", files: { "src/app/main.ts": "main();", "notes/new.txt": "hi" } },
  ...extra
})

const decode = (json: Json): ScenarioFile.Conversation => decodeConversation(FILE, json)

const invalid = (json: Json): string => problemOf(FILE, json)

/** A fake `Roots` over memory: what it was asked, and how many copies are still open. */
const fakeRoots = (options?: { readonly refuse?: string; readonly failOpen?: string }) => {
  const asked: Array<readonly [string, string]> = []
  let open = 0
  const roots = Roots.Roots.of({
    check: (root, file) =>
      Effect.suspend(() => {
        asked.push([root, file])
        return options?.refuse === undefined
          ? Effect.void
          : Effect.fail(new Roots.InvalidRoot({ problem: options.refuse }))
      }),
    open: (root, file) =>
      Effect.gen(function* () {
        asked.push([root, file])
        if (options?.failOpen !== undefined) return yield* new Roots.InvalidRoot({ problem: options.failOpen })
        open++
        yield* Effect.addFinalizer(() => Effect.sync(() => void open--))
        return Files.makeFiles({ "src/app/main.ts": "main();" })
      })
  })
  return { roots, asked, open: () => open }
}

describe("root: decoding", () => {
  it("a relative folder decodes", () => {
    assert.strictEqual(decode(conversation()).file.root, "fixtures/project")
  })

  it("refuses inline files next to it, an absolute path, an empty name, a NUL", () => {
    assert.strictEqual(
      invalid(conversation({ files: { "a.txt": "x" } })),
      `root: the files come from the "root" folder or from "files", not both: remove one`
    )
    for (const absolute of ["/etc", "C:\\Users", "\\\\server\\share"]) {
      assert.strictEqual(
        invalid(conversation({ root: absolute })),
        `root: expected a folder relative to the scenario file's folder, got the absolute path ${JSON.stringify(absolute)}`
      )
    }
    assert.strictEqual(
      invalid(conversation({ root: "" })),
      `root: expected a value with a length of at least 1, got ""`
    )
    assert.strictEqual(invalid(conversation({ root: "a\u0000b" })), "root: a folder name cannot hold a NUL character")
    assert.strictEqual(invalid(conversation({ root: 1 })), "root: expected string, got 1")
  })
})

describe("root: running", () => {
  it.effect("the run works on the copy the service opens; outcome.files is the copy's; it is closed after", () =>
    Effect.gen(function* () {
      const fake = fakeRoots()
      const memory = yield* Trace.memory
      const verdict = yield* Conversation.run(decode(conversation()), FILE).pipe(
        Effect.provideService(Roots.Roots, fake.roots),
        Effect.provideService(Trace.Trace, memory.trace)
      )
      assert.deepStrictEqual(verdict.failures, [])
      assert.isTrue(verdict.passed)
      assert.deepStrictEqual(fake.asked, [["fixtures/project", FILE]])
      assert.strictEqual(fake.open(), 0)
      const annotations = (yield* memory.events).flatMap((e) =>
        e.type === "trace.annotated" ? [[e.key, e.value]] : []
      )
      // The initial files on the trace are the copy's, so a captured run replays without the folder.
      assert.deepStrictEqual(
        annotations.find(([key]) => key === Conversation.annotations.files),
        [Conversation.annotations.files, { "src/app/main.ts": "main();" }]
      )
    })
  )

  it.effect("outcome.files that differ from the copy's tree fail the verdict", () =>
    Effect.gen(function* () {
      const fake = fakeRoots()
      const json = conversation()
      json.outcome = { stop: "end", files: { "src/app/main.ts": "main();" } }
      const verdict = yield* Conversation.run(decode(json), FILE).pipe(Effect.provideService(Roots.Roots, fake.roots))
      assert.deepStrictEqual(
        verdict.failures.map((f) => f.message),
        [`file 'notes/new.txt' differs after the run\n  expected: (no such file)\n  seen:     "hi"`]
      )
    })
  )

  it.effect("without a Roots, or when the copy cannot be made: a root failure, and nothing runs", () =>
    Effect.gen(function* () {
      const without = yield* Conversation.run(decode(conversation()), FILE)
      assert.deepStrictEqual(without.outcome, { stop: "diverged", files: {}, turns: 0 })
      assert.deepStrictEqual(
        without.failures.map((f) => [f.kind, f.message]),
        [["root", `root: ${Roots.missing}`]]
      )
      const fake = fakeRoots({ failOpen: "fixtures/project/fifo: a FIFO (named pipe), which cannot be copied" })
      const failed = yield* Conversation.run(decode(conversation()), FILE).pipe(
        Effect.provideService(Roots.Roots, fake.roots)
      )
      assert.deepStrictEqual(
        failed.failures.map((f) => [f.kind, f.message]),
        [["root", "root: fixtures/project/fifo: a FIFO (named pipe), which cannot be copied"]]
      )
      assert.strictEqual(failed.outcome.turns, 0)
    })
  )
})

describe("root: Suite.load", () => {
  const file = "cases/root.json"
  /** A file system holding only that file. */
  const disk = oneFileDisk(conversation())

  it.effect("refuses the file when no Roots is provided (exit 2 in the CLI)", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Suite.load(file))
      assert.strictEqual(error.message, `${file}: root: ${Roots.missing}`)
    }).pipe(Effect.provide(disk))
  )

  it.effect("refuses it at root, in the service's words, when the folder cannot be used", () =>
    Effect.gen(function* () {
      const fake = fakeRoots({ refuse: "no such folder next to the scenario file" })
      const error = yield* Effect.flip(Suite.load(file).pipe(Effect.provideService(Roots.Roots, fake.roots)))
      assert.strictEqual(error.message, `${file}: root: no such folder next to the scenario file`)
      assert.deepStrictEqual(fake.asked, [["fixtures/project", file]])
    }).pipe(Effect.provide(disk))
  )

  it.effect("loads it when the service accepts the folder", () =>
    Effect.gen(function* () {
      const scenario = yield* Suite.load(file).pipe(Effect.provideService(Roots.Roots, fakeRoots().roots))
      assert.strictEqual(scenario.kind, "conversation")
    }).pipe(Effect.provide(disk))
  )
})
