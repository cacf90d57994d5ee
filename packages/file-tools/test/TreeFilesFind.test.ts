// TreeFiles' find, what `search` runs over a real tree: the needle's bytes looked for in each
// file's bytes, only the lines found decoded. It must give exactly what decoding every file and
// splitting it would (multibyte characters, CRLF, bytes that are not UTF-8, needles a byte search
// cannot stand for), read files that change size while read, never open what the guard refuses,
// never block on a FIFO, never follow a link, and keep the tools' caps and notes.
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"
import * as nodePath from "node:path"
import { PathGuard } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import fc from "fast-check"
import { Files, FileTools, TreeFiles } from "../src/index.ts"
import * as Lines from "../src/internal/lines.ts"
import { asEffect, observe } from "./run.ts"
import { recording, tempDir, tracked, withProject } from "./tree.ts"

let project: { readonly root: string; readonly outside: string }
let files: Files.FilesShape

withProject(
  "find",
  (made, tree) => {
    project = made
    files = tree
  },
  200
)

/** Runs `f` with `fs[name]` replaced (and the ESM bindings synced), restoring it after. */
const patched = <K extends "readSync" | "openSync", A, E>(
  name: K,
  replacement: (original: (typeof fs)[K]) => (typeof fs)[K],
  effect: Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.suspend(() => {
    const mutable = fs as unknown as Record<K, (typeof fs)[K]>
    const original = mutable[name]
    mutable[name] = replacement(original)
    syncBuiltinESMExports()
    return Effect.ensuring(
      effect,
      Effect.sync(() => {
        mutable[name] = original
        syncBuiltinESMExports()
      })
    )
  })

const findAll = (tree: Files.FilesShape, pattern: string, allows: (path: string) => boolean = () => true) => {
  const find = tree.find
  if (find === undefined) throw new Error("TreeFiles must provide find")
  return Stream.runCollect(find("", pattern, allows))
}

/** The search observation over `tree` through `scan` (find hidden): what find must agree with. */
const withoutFind = (tree: Files.FilesShape): Files.FilesShape => ({ ...tree, find: undefined })

const ok = (content: string) => ({ isError: false, content })

describe("the lines of bytes, as the lines of their text", () => {
  const pieces = [
    "a",
    "b",
    "ne",
    "edle",
    "needle",
    " ",
    "\n",
    "\r",
    "\r\n",
    "é",
    "€",
    "🍅",
    "ñandú",
    "\uFEFF",
    "\uFFFD"
  ].map((piece) => Buffer.from(piece, "utf8"))
  // Bytes that are not UTF-8: a lone continuation, a lead byte cut short, bytes never used.
  const broken = [[0x80], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x8d], [0xff], [0xed, 0xa0, 0x80]].map((b) =>
    Buffer.from(b)
  )
  const bytes = fc.array(fc.constantFrom(...pieces, ...broken), { maxLength: 40 }).map((parts) => Buffer.concat(parts))
  const patterns = fc.constantFrom(
    "a",
    "needle",
    "é",
    "€a",
    "🍅",
    "ñandú",
    "a b",
    "\uFEFFa",
    "e",
    "",
    "\n",
    "a\r",
    "\uFFFD",
    "\ud83c",
    "a\ud83c"
  )

  it("find's matcher gives what decoding the whole file and splitting it gives, for any bytes", () => {
    fc.assert(
      fc.property(bytes, patterns, (file, pattern) => {
        const expected = Lines.matchingInText(file.toString("utf8"), pattern)
        const needle = Lines.needleOf(pattern)
        const got = needle === undefined ? expected : Lines.matchingInBytes(file, needle)
        expect(got).toEqual(expected)
      }),
      { numRuns: 3000 }
    )
  })

  it("patterns bytes cannot stand for go through the text: empty, line breaks, U+FFFD, lone surrogates", () => {
    for (const pattern of ["", "\n", "a\r", "\uFFFD", "\ud83c", "x\udc00"])
      expect(Lines.needleOf(pattern)).toBe(undefined)
    expect(Lines.needleOf("ñandú 🍅")).toEqual(Buffer.from("ñandú 🍅", "utf8"))
  })

  it("a line is given once however often the needle is on it; CRLF, CR and LF end lines", () => {
    const file = Buffer.from("x needle needle\r\nneedle\rno\nlast needle", "utf8")
    expect(Lines.matchingInBytes(file, Buffer.from("needle"))).toEqual(["x needle needle", "needle", "last needle"])
    expect(Lines.matchingInBytes(Buffer.from(""), Buffer.from("a"))).toEqual([])
  })
})

describe("TreeFiles: find over a project", () => {
  it.effect("finds what a search through scan finds, for every kind of pattern", () =>
    Effect.gen(function* () {
      for (const pattern of ["needle", "e", "", "\n", "ne\r", "\uFFFD", "\ud800", "nothing at all", "SECRET"]) {
        const fast = yield* observe(FileTools.Search, { pattern }, files)
        const slow = yield* observe(FileTools.Search, { pattern }, withoutFind(files))
        expect(fast).toEqual(slow)
      }
    })
  )

  it("never opens, reads or stats anything under node_modules or .git, nor what the link leads to", async () => {
    const { value, paths } = await recording(() =>
      Effect.runPromise(observe(FileTools.Search, { pattern: "needle" }, files))
    )
    expect(value.content).toContain("notes.txt: needle one")
    const modules = nodePath.join(project.root, "node_modules")
    const git = nodePath.join(project.root, ".git")
    expect(paths.filter((p) => p === modules || p.startsWith(`${modules}/`))).toEqual([])
    expect(paths.filter((p) => p.startsWith(`${git}/`) && !p.startsWith(`${git}/info`))).toEqual([])
    expect(paths.filter((p) => p.startsWith(project.outside))).toEqual([])
    // The FIFO, the socket and the links are known for what they are from the folder, never opened.
    for (const name of ["fifo", "sock", "src/linked", "src/file-link.ts"]) {
      expect(paths).not.toContain(nodePath.join(project.root, name))
    }
  })

  it.effect("a file the guard refuses is never opened; it is counted when a listing would show it", () =>
    Effect.gen(function* () {
      const refused = (path: string) => path.startsWith("src/") || path.startsWith("hard")
      const opened: Array<string> = []
      const value = yield* patched(
        "openSync",
        (original) =>
          ((path: fs.PathLike, ...rest: Array<never>) => {
            opened.push(String(path))
            return (original as (...args: Array<unknown>) => number)(path, ...rest)
          }) as typeof fs.openSync,
        // The tool alone (`observe` also takes a snapshot of every file afterwards).
        Effect.provideService(
          Effect.provideService(asEffect(FileTools.Search.run({ pattern: "needle" }, { id: "t" })), Files.Files, files),
          PathGuard.PathGuard,
          { allows: (path) => !refused(path) }
        )
      )
      const left = tracked.filter(refused).length // the hard links are not among them: no listing shows them
      expect(value).toBe(
        `README.md: needle in the readme\nnotes.txt: needle one\nnotes.txt: needle two\n${left} paths left out by the permission policy`
      )
      expect(opened.length).toBeGreaterThan(5) // the recorder saw the walk
      // Only folders and the .gitignore files (the walk's rules) are opened under src/, and no hard link.
      for (const name of ["main.ts", "util.ts", "keep.gen.ts", "x.ts", "y.ts", "hard.txt", "hard2.txt"]) {
        expect(opened.filter((p) => p.endsWith(`/${name}`))).toEqual([])
      }
      expect(opened.some((p) => p.endsWith("/notes.txt"))).toBe(true)
      const found = yield* findAll(files, "needle", (path) => !refused(path))
      expect(found.filter((f) => f._tag === "LeftOut").map((f) => f.path)).toEqual(tracked.filter(refused))
    })
  )
})

describe("TreeFiles: find over hostile and unusual files", () => {
  it.effect("a search stopped at its first result stops walking and closes the folders it opened", () =>
    Effect.gen(function* () {
      const root = tempDir("find-stop")
      for (let d = 0; d < 5; d++) {
        fs.mkdirSync(nodePath.join(root, `d${d}`, "deeper"), { recursive: true })
        for (let f = 0; f < 300; f++) fs.writeFileSync(nodePath.join(root, `d${d}`, "deeper", `f${f}`), "needle\n")
      }
      const tree = yield* TreeFiles.make(root)
      const find = tree.find
      if (find === undefined) throw new Error("TreeFiles must provide find")
      const before = fs.readdirSync("/proc/self/fd").length
      const opened: Array<string> = []
      const first = yield* patched(
        "openSync",
        (original) =>
          ((path: fs.PathLike, ...rest: Array<never>) => {
            opened.push(String(path))
            return (original as (...args: Array<unknown>) => number)(path, ...rest)
          }) as typeof fs.openSync,
        Stream.runCollect(
          Stream.take(
            find("", "needle", () => true),
            1
          )
        )
      )
      expect(first).toEqual([{ _tag: "Lines", path: "d0/deeper/f0", lines: ["needle"] }])
      // One batch of files read (256 at most), not the 1,500.
      expect(opened.length).toBeLessThan(300)
      expect(fs.readdirSync("/proc/self/fd").length).toBeLessThanOrEqual(before)
    })
  )

  it.effect("multibyte needles and lines, CRLF and CR, a BOM, bytes that are not UTF-8", () =>
    Effect.gen(function* () {
      const root = tempDir("find-text")
      fs.writeFileSync(nodePath.join(root, "crlf.txt"), "uno ñandú\r\ndos\r\ntres ñandú 🍅\r\n")
      fs.writeFileSync(nodePath.join(root, "cr.txt"), "ñandú\rnada\r")
      fs.writeFileSync(nodePath.join(root, "bom.txt"), "\uFEFFñandú first\n")
      fs.writeFileSync(
        nodePath.join(root, "broken.txt"),
        Buffer.concat([Buffer.from([0xff, 0xc3]), Buffer.from("ñandú\n"), Buffer.from([0xe2, 0x82]), Buffer.from("\n")])
      )
      const tree = yield* TreeFiles.make(root)
      expect(yield* observe(FileTools.Search, { pattern: "ñandú" }, tree)).toEqual(
        ok(
          [
            "bom.txt: \uFEFFñandú first",
            "broken.txt: \uFFFD\uFFFDñandú",
            "cr.txt: ñandú",
            "crlf.txt: uno ñandú",
            "crlf.txt: tres ñandú 🍅"
          ].join("\n")
        )
      )
      expect(yield* observe(FileTools.Buscar, { patron: "🍅" }, tree)).toEqual(ok("crlf.txt: tres ñandú 🍅"))
      // U+FFFD stands for the bytes that are not UTF-8, as in the decoded text.
      expect(yield* observe(FileTools.Search, { pattern: "\uFFFD" }, tree)).toEqual(
        ok("broken.txt: \uFFFD\uFFFDñandú\nbroken.txt: \uFFFD")
      )
      for (const pattern of ["ñandú", "\uFFFD", "", "dos", "\r"]) {
        expect(yield* observe(FileTools.Search, { pattern }, tree)).toEqual(
          yield* observe(FileTools.Search, { pattern }, withoutFind(tree))
        )
      }
    })
  )

  it.effect("a needle across the buffer's first size (64 KiB) and deep in a large file is found", () =>
    Effect.gen(function* () {
      const root = tempDir("find-large")
      const head = "x".repeat(64 * 1024 - 3)
      fs.writeFileSync(nodePath.join(root, "large.txt"), `${head}needle\n${"y".repeat(200_000)}\nlast ñandú needle\n`)
      fs.writeFileSync(nodePath.join(root, "small.txt"), "needle\n")
      const tree = yield* TreeFiles.make(root)
      const found = yield* findAll(tree, "needle")
      expect(found.map((f) => (f._tag === "Lines" ? [f.path, f.lines.map((l) => l.length)] : f))).toEqual([
        ["large.txt", [head.length + 6, "last ñandú needle".length]],
        ["small.txt", [6]]
      ])
      const multibyte = yield* findAll(tree, "ú needle")
      expect(multibyte).toEqual([{ _tag: "Lines", path: "large.txt", lines: ["last ñandú needle"] }])
    })
  )

  it.effect("a file that grows or shrinks while read: read to its end, or as far as it goes", () =>
    Effect.gen(function* () {
      const root = tempDir("find-change")
      const grows = nodePath.join(root, "grows.txt")
      const shrinks = nodePath.join(root, "shrinks.txt")
      fs.writeFileSync(grows, "first line\n")
      fs.writeFileSync(shrinks, `${"z".repeat(5000)}\nneedle at the end\n`)
      const tree = yield* TreeFiles.make(root)
      const changed = new Set<string>()
      const found = yield* patched(
        "readSync",
        (original) =>
          ((fd: number, ...rest: Array<never>) => {
            // Right after `fstat`, before the first read of each file: change its size.
            const target = fs.readlinkSync(`/proc/self/fd/${fd}`)
            if (!changed.has(target)) {
              changed.add(target)
              if (target === grows) fs.appendFileSync(grows, `${"g".repeat(100_000)}\nneedle appended\n`)
              if (target === shrinks) fs.truncateSync(shrinks, 100)
            }
            return (original as (...args: Array<unknown>) => number)(fd, ...rest)
          }) as typeof fs.readSync,
        findAll(tree, "needle")
      )
      expect([...changed].sort()).toEqual([grows, shrinks])
      expect(found).toEqual([{ _tag: "Lines", path: "grows.txt", lines: ["needle appended"] }])
    })
  )

  it.effect("a file that grows past the limit while read is skipped as too large", () =>
    Effect.gen(function* () {
      const root = tempDir("find-grow-limit")
      const file = nodePath.join(root, "a.txt")
      fs.writeFileSync(file, "needle\n")
      const tree = yield* TreeFiles.make(root, { maxFileBytes: 1000 })
      let grew = false
      const found = yield* patched(
        "readSync",
        (original) =>
          ((fd: number, ...rest: Array<never>) => {
            if (!grew) {
              grew = true
              fs.appendFileSync(file, "x".repeat(5000))
            }
            return (original as (...args: Array<unknown>) => number)(fd, ...rest)
          }) as typeof fs.readSync,
        findAll(tree, "needle")
      )
      expect(found).toEqual([{ _tag: "Skipped", path: "a.txt", reason: "too-large" }])
    })
  )

  it.effect("files over the limit and binary files are not read, and the search says how many", () =>
    Effect.gen(function* () {
      const root = tempDir("find-sizes")
      fs.writeFileSync(nodePath.join(root, "a.txt"), "needle\n")
      fs.writeFileSync(nodePath.join(root, "big.txt"), `needle\n${"x".repeat(2000)}`)
      fs.writeFileSync(nodePath.join(root, "bin.dat"), Buffer.from("needle\0\n"))
      // A NUL after the first 8 KiB: text, as git sees it.
      fs.writeFileSync(
        nodePath.join(root, "late.txt"),
        Buffer.concat([Buffer.from(`needle late\n${"x".repeat(9000)}`), Buffer.alloc(1)])
      )
      // A sparse 2 GiB file: reading it would take 2 GiB.
      const fd = fs.openSync(nodePath.join(root, "huge.bin"), "w")
      fs.ftruncateSync(fd, 2 * 1024 * 1024 * 1024)
      fs.closeSync(fd)
      const tree = yield* TreeFiles.make(root, { maxFileBytes: 1000 })
      expect(yield* findAll(tree, "needle")).toEqual([
        { _tag: "Lines", path: "a.txt", lines: ["needle"] },
        { _tag: "Skipped", path: "big.txt", reason: "too-large" },
        { _tag: "Skipped", path: "bin.dat", reason: "binary" },
        { _tag: "Skipped", path: "huge.bin", reason: "too-large" },
        { _tag: "Skipped", path: "late.txt", reason: "too-large" }
      ])
      const large = yield* TreeFiles.make(root, { maxFileBytes: 10_000 })
      expect(yield* observe(FileTools.Search, { pattern: "needle" }, large)).toEqual(
        ok(
          "a.txt: needle\nbig.txt: needle\nlate.txt: needle late\n2 files not searched (binary, or over the size limit)"
        )
      )
    })
  )

  it.effect("a FIFO never blocks a search, even one swapped in for a file after the folder was read", () =>
    Effect.gen(function* () {
      const root = tempDir("find-fifo")
      fs.writeFileSync(nodePath.join(root, "a.txt"), "needle a\n")
      fs.writeFileSync(nodePath.join(root, "b.txt"), "needle b\n")
      fs.writeFileSync(nodePath.join(root, "c.txt"), "needle c\n")
      execFileSync("mkfifo", [nodePath.join(root, "fifo.txt")], { timeout: 10_000 })
      const tree = yield* TreeFiles.make(root)
      expect(yield* observe(FileTools.Search, { pattern: "needle" }, tree)).toEqual(
        ok("a.txt: needle a\nb.txt: needle b\nc.txt: needle c")
      )
      // b.txt becomes a FIFO between the folder's listing and its opening.
      let swapped = false
      const found = yield* patched(
        "openSync",
        (original) =>
          ((path: fs.PathLike, ...rest: Array<never>) => {
            if (!swapped && String(path).endsWith("/b.txt")) {
              swapped = true
              fs.rmSync(nodePath.join(root, "b.txt"))
              execFileSync("mkfifo", [nodePath.join(root, "b.txt")], { timeout: 10_000 })
            }
            return (original as (...args: Array<unknown>) => number)(path, ...rest)
          }) as typeof fs.openSync,
        findAll(tree, "needle")
      )
      expect(swapped).toBe(true)
      expect(found.map((f) => f.path)).toEqual(["a.txt", "c.txt"])
    })
  )

  it.effect("a link to outside (a file or a folder) is never followed; a hard link is never read", () =>
    Effect.gen(function* () {
      const base = tempDir("find-links")
      const root = nodePath.join(base, "root")
      const outside = nodePath.join(base, "outside")
      fs.mkdirSync(root)
      fs.mkdirSync(outside)
      fs.writeFileSync(nodePath.join(outside, "secret.txt"), "needle SECRET\n")
      fs.writeFileSync(nodePath.join(root, "a.txt"), "needle a\n")
      fs.symlinkSync(nodePath.join(outside, "secret.txt"), nodePath.join(root, "file-link.txt"))
      fs.symlinkSync(outside, nodePath.join(root, "folder-link"))
      fs.linkSync(nodePath.join(outside, "secret.txt"), nodePath.join(root, "hard.txt"))
      const tree = yield* TreeFiles.make(root)
      expect(yield* observe(FileTools.Search, { pattern: "needle" }, tree)).toEqual(ok("a.txt: needle a"))
      expect(yield* observe(FileTools.Search, { pattern: "SECRET" }, tree)).toEqual(ok(""))
    })
  )

  it("an ignored folder stays unwalked even where a .gitignore re-includes something in it", async () => {
    const root = tempDir("find-ignored")
    const put = (path: string, content: string) => {
      fs.mkdirSync(nodePath.dirname(nodePath.join(root, path)), { recursive: true })
      fs.writeFileSync(nodePath.join(root, path), content)
    }
    put(".gitignore", "build/\n*.log\n!keep.log\n")
    put("build/.gitignore", "!*\n")
    put("build/out.txt", "needle in build\n")
    put("a.log", "needle in a log\n")
    put("keep.log", "needle kept\n")
    put("src/.gitignore", "!x.log\n*.tmp\n")
    put("src/x.log", "needle re-included\n")
    put("src/y.log", "needle ignored\n")
    put("src/z.tmp", "needle tmp\n")
    const tree = TreeFiles.makeUnsafe(root)
    const { value, paths } = await recording(() =>
      Effect.runPromise(observe(FileTools.Search, { pattern: "needle" }, tree))
    )
    expect(value).toEqual(ok("keep.log: needle kept\nsrc/x.log: needle re-included"))
    expect(paths.filter((p) => p.includes("/build"))).toEqual([])
    expect(await Effect.runPromise(observe(FileTools.Search, { pattern: "needle" }, withoutFind(tree)))).toEqual(value)
  })

  it.effect("a line longer than the output's cap is counted as not shown, never cut in the middle", () =>
    Effect.gen(function* () {
      const root = tempDir("find-long")
      fs.writeFileSync(nodePath.join(root, "a.txt"), "needle short\n")
      fs.writeFileSync(nodePath.join(root, "b.txt"), `needle ${"ñ".repeat(FileTools.limits.maxBytes)}\nneedle after\n`)
      const tree = yield* TreeFiles.make(root)
      expect(yield* observe(FileTools.Search, { pattern: "needle" }, tree)).toEqual(
        ok("a.txt: needle short\n… 2 more lines not shown: narrow the pattern")
      )
    })
  )

  it.effect("more than 2,000 matching lines over many files: the first 2,000 shown, the rest counted", () =>
    Effect.gen(function* () {
      const root = tempDir("find-many")
      for (let d = 0; d < 3; d++) {
        fs.mkdirSync(nodePath.join(root, `d${d}`))
        for (let f = 0; f < 10; f++) fs.writeFileSync(nodePath.join(root, `d${d}`, `f${f}`), "needle\n".repeat(70))
      }
      const tree = yield* TreeFiles.make(root)
      const found = (yield* observe(FileTools.Search, { pattern: "needle" }, tree)).content.split("\n")
      expect(found.length).toBe(FileTools.limits.maxLines + 1)
      expect(found[0]).toBe("d0/f0: needle")
      expect(found.at(-1)).toBe("… 100 more lines not shown: narrow the pattern")
    })
  )
})
