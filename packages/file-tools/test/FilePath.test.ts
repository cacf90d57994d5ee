import { describe, expect, it } from "@effect/vitest"
import { FilePath } from "../src/index.ts"

describe("FilePath.problem", () => {
  it("accepts relative paths, whatever they look like otherwise", () => {
    for (const path of [
      "a.txt",
      "recetas/gazpacho.txt",
      ".hidden",
      "..x",
      "x..",
      "a/./b",
      "a//b",
      "dir/",
      "ñ 🍅",
      "%2E%2E"
    ]) {
      expect(FilePath.problem(path)).toBeUndefined()
    }
  })

  it("names the first problem, in order: empty, too long, NUL, lone surrogate, outside", () => {
    expect(FilePath.problem("")).toBe("empty")
    expect(FilePath.problem("", { allowEmpty: true })).toBeUndefined()
    expect(FilePath.problem("x".repeat(FilePath.maxLength))).toBeUndefined()
    expect(FilePath.problem("x".repeat(FilePath.maxLength + 1))).toBe("too-long")
    expect(FilePath.problem("../\0")).toBe("nul")
    expect(FilePath.problem("../\uDC00")).toBe("malformed")
    for (const path of ["..", "../a", "a/..", "a/../b", "a\\..\\b", "/a", "\\a", "C:\\a", "c:", "//server/share"]) {
      expect(FilePath.problem(path)).toBe("outside")
    }
  })

  it("isWellFormed finds lone surrogates anywhere and accepts pairs", () => {
    expect(FilePath.isWellFormed("🍅")).toBe(true)
    expect(FilePath.isWellFormed("a\uD83C")).toBe(false)
    expect(FilePath.isWellFormed("\uDF45a")).toBe(false)
    expect(FilePath.isWellFormed("\uD83C\uD83C\uDF45")).toBe(false)
  })
})

describe("PathRefused", () => {
  it("has a message in English, and words for every reason in both languages", () => {
    const refused = new FilePath.PathRefused({ path: "../x", reason: "outside" })
    expect(refused.message).toBe("not executed: path outside the root: '../x'")
    for (const reason of FilePath.reasons) {
      expect(FilePath.describe(reason, "p", FilePath.english)).not.toBe("")
      expect(FilePath.describe(reason, "p", FilePath.spanish)).not.toBe(
        FilePath.describe(reason, "p", FilePath.english)
      )
    }
  })
})
