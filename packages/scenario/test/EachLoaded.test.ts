/**
 * `Suite.eachLoaded` and `Suite.runAll`: one file runs at a time, in the files' order, while at
 * most `readAhead` files after it are read; the results do not depend on how far it reads ahead;
 * a run that fails stops it, and no file beyond the window was read.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { ByteSize, Effect, FileSystem, Option, Result } from "effect"
import { Suite } from "../src/index.ts"
import * as SyncFileSystem from "../src/SyncFileSystem.ts"
import { catalogo, shipped } from "./fixtures/files.ts"

const info = (size: number): FileSystem.File.Info => ({
  type: "File",
  mtime: Option.none(),
  atime: Option.none(),
  birthtime: Option.none(),
  dev: 1n,
  ino: Option.none(),
  mode: 0o644,
  nlink: Option.none(),
  uid: Option.none(),
  gid: Option.none(),
  rdev: Option.none(),
  size: ByteSize.bytes(BigInt(size)),
  blksize: Option.none(),
  blocks: Option.none()
})

/** Files `f0.json`… each seed 003's cases (a response-cases scenario), read after a macrotask; what was read, in order. */
const disk = (events: Array<string>) => {
  const bytes = new Uint8Array(readFileSync(catalogo))
  return FileSystem.layerNoop({
    stat: () => Effect.succeed(info(bytes.length)),
    readFile: (path) =>
      Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve))).pipe(
        Effect.as(bytes),
        Effect.tap(() => Effect.sync(() => events.push(`read ${path}`)))
      )
  })
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i}.json`)

describe("Suite.eachLoaded", () => {
  it.live("runs in order, reading at most readAhead files beyond the one running", () =>
    Effect.gen(function* () {
      for (const readAhead of [1, 2, 4]) {
        const events: Array<string> = []
        const files = names(12)
        const ran = yield* Suite.eachLoaded(
          files,
          (loaded, i) =>
            Effect.sync(() => {
              events.push(`run ${files[i]}`)
              return Result.isSuccess(loaded) ? i : -1
            }).pipe(Effect.delay(2)),
          { readAhead }
        ).pipe(Effect.provide(disk(events)))
        assert.deepStrictEqual(
          ran,
          files.map((_, i) => i)
        )
        const runs = events.filter((e) => e.startsWith("run")).map((e) => e.slice(4))
        assert.deepStrictEqual(runs, files)
        // A run takes a while: when file i runs, no file past i + readAhead (+1 for the element in
        // flight) has been read.
        let most = 0
        for (let i = 0; i < files.length; i++) {
          const at = events.indexOf(`run ${files[i]}`)
          const read = events.slice(0, at).filter((e) => e.startsWith("read")).length
          assert.isAtMost(read, i + readAhead + 1, `readAhead ${readAhead}, file ${i}`)
          most = Math.max(most, read - i - 1)
        }
        // It does read ahead: some file runs while later ones have been read already.
        if (readAhead > 1) assert.isAbove(most, 0, `readAhead ${readAhead}`)
      }
    })
  )

  it.effect("a run that fails stops it: nothing after the window is read, nothing after it runs", () =>
    Effect.gen(function* () {
      const events: Array<string> = []
      const files = names(40)
      const failed = yield* Effect.flip(
        Suite.eachLoaded(
          files,
          (_loaded, i) => (i === 3 ? Effect.fail("stop") : Effect.sync(() => void events.push(`run ${files[i]}`))),
          { readAhead: 4 }
        ).pipe(Effect.provide(disk(events)))
      )
      assert.strictEqual(failed, "stop")
      assert.deepStrictEqual(
        events.filter((e) => e.startsWith("run")),
        ["run f0.json", "run f1.json", "run f2.json"]
      )
      assert.isAtMost(events.filter((e) => e.startsWith("read")).length, 3 + 4 + 2)
    })
  )

  it.effect("runAll gives the same entries whatever it reads ahead, on the shipped scenarios", () =>
    Effect.gen(function* () {
      const files = shipped()
      const ahead = yield* Suite.runAll(files)
      const one = yield* Suite.eachLoaded(
        files,
        (loaded, i): Effect.Effect<Suite.Entry> =>
          Result.isSuccess(loaded)
            ? Effect.map(Suite.run(loaded.success, files[i] as string), Result.succeed)
            : Effect.succeed(Result.fail(loaded.failure)),
        { readAhead: 1 }
      )
      assert.deepStrictEqual(
        ahead.map((e) => (Result.isSuccess(e) ? e.success : e.failure.message)),
        one.map((e) => (Result.isSuccess(e) ? e.success : e.failure.message))
      )
    }).pipe(Effect.provide(SyncFileSystem.layer))
  )
})
