/**
 * Node's synchronous file calls as `FileSystem` (`@agent-harness/scenario/SyncFileSystem`): the
 * same scenarios load as through any file system; a FIFO, a folder or a device is refused by
 * `readFile` without waiting (even when `stat` saw a regular file); the overlay keeps every
 * other call of the file system under it.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Result } from "effect"
import { Suite } from "../src/index.ts"
import * as SyncFileSystem from "../src/SyncFileSystem.ts"
import { salmorejoEn, shipped } from "./fixtures/files.ts"

const temp = mkdtempSync(join(tmpdir(), "scenario-sync-fs-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const readFile = (path: string) =>
  Effect.runSync(
    Effect.result(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFile(path))).pipe(
      Effect.provide(SyncFileSystem.layer)
    )
  )

describe("SyncFileSystem", () => {
  it("every shipped scenario loads as it is written", () => {
    for (const file of shipped()) {
      const loaded = Effect.runSync(Effect.result(Suite.load(file)).pipe(Effect.provide(SyncFileSystem.layer)))
      // Files that need a mounter or a permission gate are refused alike everywhere: here, only
      // the reading is under test.
      if (Result.isFailure(loaded)) assert.notInclude(loaded.failure.problem, "cannot be read", file)
    }
  })

  it("readFile gives a regular file's bytes, through a link too", () => {
    const link = join(temp, "link.json")
    symlinkSync(salmorejoEn, link)
    const bytes = readFile(link)
    assert.isTrue(Result.isSuccess(bytes))
    if (Result.isSuccess(bytes)) assert.deepStrictEqual(Buffer.from(bytes.success), readFileSync(salmorejoEn))
  })

  it("readFile refuses a FIFO without waiting for a writer, a folder and a device", { timeout: 30_000 }, () => {
    const fifo = join(temp, "pipe.json")
    execFileSync("mkfifo", [fifo])
    const folder = join(temp, "folder.json")
    mkdirSync(folder)
    for (const path of [fifo, folder, "/dev/zero"]) {
      const got = readFile(path)
      assert.isTrue(Result.isFailure(got), path)
      if (Result.isFailure(got)) assert.include(got.failure.message, "readFile", path)
    }
    const missing = readFile(join(temp, "missing.json"))
    assert.isTrue(Result.isFailure(missing) && missing.failure.message.startsWith("NotFound"))
  })

  it.effect("the overlay makes the four calls synchronous and keeps the rest of the file system under it", () =>
    Effect.gen(function* () {
      const file = join(temp, "overlay.txt")
      writeFileSync(file, "hello")
      const written: Array<string> = []
      const under = FileSystem.layerNoop({
        writeFileString: (path) => Effect.sync(() => void written.push(path)),
        readFile: () => Effect.die("the overlay reads files itself")
      })
      yield* Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        assert.strictEqual(new TextDecoder().decode(yield* fs.readFile(file)), "hello")
        assert.strictEqual((yield* fs.stat(file)).type, "File")
        yield* fs.writeFileString(join(temp, "out.txt"), "x")
      }).pipe(Effect.provide(Layer.provide(SyncFileSystem.overlay, under)))
      assert.deepStrictEqual(written, [join(temp, "out.txt")])
    })
  )
})
