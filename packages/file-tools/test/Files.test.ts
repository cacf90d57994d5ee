import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Files } from "../src/index.ts"
import { readsWritesAppendsLists } from "./fixtures/contract.ts"

describe("Files", () => {
  it.effect("reads, writes, appends, lists and snapshots", () =>
    readsWritesAppendsLists(Files.makeFiles({ "b.txt": "B", "a.txt": "A" }))
  )

  it.effect("a snapshot is a copy", () =>
    Effect.gen(function* () {
      const files = Files.makeFiles({ "a.txt": "A" })
      const snap = yield* files.snapshot
      snap["a.txt"] = "changed"
      expect(yield* files.read("a.txt")).toEqual(Option.some("A"))
    })
  )

  it.effect("makeFiles copies its initial record, and two copies are independent", () =>
    Effect.gen(function* () {
      const initial: Record<string, string> = { "a.txt": "A" }
      const one = Files.makeFiles(initial)
      const two = Files.makeFiles(initial)
      yield* one.write("a.txt", "one")
      initial["a.txt"] = "mutated"
      expect(yield* one.read("a.txt")).toEqual(Option.some("one"))
      expect(yield* two.read("a.txt")).toEqual(Option.some("A"))
    })
  )

  it.effect("each build of the layer starts from the initial files", () =>
    Effect.gen(function* () {
      const layer = Files.layer({ "a.txt": "A" })
      const change = Files.Files.use((files) => Effect.andThen(files.append("a.txt", "!"), files.snapshot))
      expect(yield* Effect.provide(change, layer)).toEqual({ "a.txt": "A!" })
      expect(yield* Effect.provide(change, layer)).toEqual({ "a.txt": "A!" })
      expect(yield* Effect.provide(Files.snapshot, layer)).toEqual({ "a.txt": "A" })
    })
  )

  it.effect("paths are opaque strings, __proto__ included", () =>
    Effect.gen(function* () {
      const files = Files.makeFiles({})
      yield* files.write("__proto__", "x")
      const snap = yield* files.snapshot
      expect(Object.getPrototypeOf(snap)).toBe(Object.prototype)
      expect(Object.keys(snap)).toEqual(["__proto__"])
      expect(yield* files.read("__proto__")).toEqual(Option.some("x"))
      expect(yield* files.read("toString")).toEqual(Option.none())
    })
  )

  it("makeFiles refuses initial files that are not a record of texts, naming the path", () => {
    const bad: ReadonlyArray<readonly [unknown, string]> = [
      [{ "a.txt": 42 }, "invalid initial files: the content of 'a.txt' is number, not a string"],
      [{ "a.txt": "A", "b.txt": null }, "invalid initial files: the content of 'b.txt' is null, not a string"],
      [{ "a.txt": ["x"] }, "invalid initial files: the content of 'a.txt' is an array, not a string"],
      [null, "invalid initial files: expected a record of path to content, got null"],
      ["a.txt", "invalid initial files: expected a record of path to content, got string"],
      [
        Object.defineProperty({}, "a.txt", {
          enumerable: true,
          get: () => {
            throw new Error("getter exploded")
          }
        }),
        "invalid initial files: the content of 'a.txt' cannot be read (getter exploded)"
      ]
    ]
    for (const [initial, message] of bad) {
      const make = () => Files.makeFiles(initial as Record<string, string>)
      expect(make).toThrow(Files.InvalidInitialFiles)
      expect(make).toThrow(message)
    }
  })

  it.effect("each content is read once: a getter cannot hand a text to the check and something else to the map", () =>
    Effect.gen(function* () {
      let reads = 0
      const initial = {
        get "a.txt"() {
          reads += 1
          return reads === 1 ? "A" : (42 as unknown as string)
        }
      }
      const files = Files.makeFiles(initial)
      expect(yield* files.read("a.txt")).toEqual(Option.some("A"))
      expect(reads).toBe(1)
    })
  )
})
