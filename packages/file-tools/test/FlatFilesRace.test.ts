// A link or a FIFO swapped in between FlatFiles' check of a name (`lstat`) and its use (`open`,
// `rename`): the check sees a plain file, the use must still not follow the link nor block.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { vi } from "vitest"
import { FlatFiles, FilePath } from "../src/index.ts"

/** Runs once, right after the next `lstat` of this file (found or not): the swap. */
const swaps = new Map<string, () => void>()

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>()
  const lstatSync = ((file: fs.PathLike, options?: fs.StatSyncOptions) => {
    try {
      return real.lstatSync(file, options)
    } finally {
      const swap = swaps.get(String(file))
      if (swap !== undefined) {
        swaps.delete(String(file))
        swap()
      }
    }
  }) as typeof real.lstatSync
  return { ...real, default: { ...real, lstatSync }, lstatSync }
})

const base = fs.mkdtempSync(nodePath.join(os.tmpdir(), "disk-files-race-"))
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))
afterEach(() => swaps.clear())

let made = 0
const setup = () => {
  made += 1
  const home = nodePath.join(base, `case-${made}`)
  fs.mkdirSync(home, { recursive: true })
  const secret = nodePath.join(home, "secret.txt")
  fs.writeFileSync(secret, "SECRET")
  const root = nodePath.join(home, "root")
  const files = FlatFiles.makeUnsafe(root)
  const at = (name: string) => nodePath.join(fs.realpathSync(root), name)
  /** After the check of `name`, replaces it by a link to the secret file. */
  const linkAfterCheck = (name: string) =>
    swaps.set(at(name), () => {
      fs.rmSync(at(name), { force: true })
      fs.symlinkSync(secret, at(name))
    })
  return { secret, files, at, linkAfterCheck }
}

const failureOf = <A>(effect: Effect.Effect<A, FilePath.PathRefused>) =>
  Effect.map(Effect.exit(effect), (exit) => (Exit.isFailure(exit) ? Exit.findErrorOption(exit) : Option.none()))

const refused = (path: string, reason: FilePath.Reason) => Option.some(new FilePath.PathRefused({ path, reason }))

describe("FlatFiles: a name swapped between the check and the use", () => {
  it.effect("read: a link swapped in after the check is refused, the outside file is not read", () =>
    Effect.gen(function* () {
      const { files, linkAfterCheck } = setup()
      yield* files.write("a.txt", "inside")
      linkAfterCheck("a.txt")
      expect(yield* failureOf(files.read("a.txt"))).toEqual(refused("a.txt", "link"))
    })
  )

  it.effect("append: a link swapped in after the check is refused, the outside file untouched", () =>
    Effect.gen(function* () {
      const { secret, files, linkAfterCheck } = setup()
      yield* files.write("a.txt", "inside")
      linkAfterCheck("a.txt")
      expect(yield* failureOf(files.append("a.txt", "!!"))).toEqual(refused("a.txt", "link"))
      expect(fs.readFileSync(secret, "utf8")).toBe("SECRET")
    })
  )

  it.effect("append to a new file: a dangling link swapped in after the check creates nothing outside", () =>
    Effect.gen(function* () {
      const { files, at } = setup()
      const target = nodePath.join(nodePath.dirname(nodePath.dirname(at("x"))), "created.txt")
      swaps.set(at("new.txt"), () => fs.symlinkSync(target, at("new.txt")))
      expect(yield* failureOf(files.append("new.txt", "x"))).toEqual(refused("new.txt", "link"))
      expect(fs.existsSync(target)).toBe(false)
    })
  )

  it.effect("write: a link swapped in after the check is replaced by the file, never written through", () =>
    Effect.gen(function* () {
      const { secret, files, at, linkAfterCheck } = setup()
      yield* files.write("a.txt", "inside")
      linkAfterCheck("a.txt")
      yield* files.write("a.txt", "new")
      expect(fs.readFileSync(secret, "utf8")).toBe("SECRET")
      expect(fs.lstatSync(at("a.txt")).isFile()).toBe(true)
      expect(yield* files.read("a.txt")).toEqual(Option.some("new"))
    })
  )

  it.effect(
    "read and append: a FIFO swapped in after the check is refused without blocking",
    () =>
      Effect.gen(function* () {
        const { files, at } = setup()
        yield* files.write("a.txt", "inside")
        const fifoAfterCheck = () =>
          swaps.set(at("a.txt"), () => {
            fs.rmSync(at("a.txt"), { force: true })
            execFileSync("mkfifo", [at("a.txt")], { timeout: 10_000 })
          })
        fifoAfterCheck()
        expect(yield* failureOf(files.read("a.txt"))).toEqual(refused("a.txt", "special"))
        fs.rmSync(at("a.txt"))
        yield* files.write("a.txt", "inside")
        fifoAfterCheck()
        expect(yield* failureOf(files.append("a.txt", "x"))).toEqual(refused("a.txt", "special"))
      }),
    60_000
  )

  it.effect("entries: a file swapped for a link between the listing and the read is skipped", () =>
    Effect.gen(function* () {
      const { files, at } = setup()
      yield* files.write("a.txt", "A")
      yield* files.write("b.txt", "B")
      // The listing lstats each name once; the read that follows lstats it again.
      let seen = 0
      swaps.set(at("a.txt"), () => {
        seen += 1
        swaps.set(at("a.txt"), () => {
          fs.rmSync(at("a.txt"))
          fs.symlinkSync(at("b.txt"), at("a.txt"))
        })
      })
      expect(yield* files.entries).toEqual([["b.txt", "B"]])
      expect(seen).toBe(1)
    })
  )
})
