/**
 * Globs: picomatch's meaning (checked against picomatch itself over generated globs and texts),
 * every refusal with its reason, and matching time that no text can blow up.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import picomatch from "picomatch"
import { Glob } from "../src/index.ts"

const glob = (source: string): Glob.Glob => Result.getOrThrow(Glob.compile(source))
const matches = (source: string, text: string): boolean => Glob.matches(glob(source), text)

describe("Glob.matches", () => {
  it.each([
    ["secrets/**", "secrets/.env", true],
    ["secrets/**", "secrets/a/b/c", true],
    ["secrets/**", "secrets", true],
    ["secrets/**", "secretsx/a", false],
    ["*.txt", "a.txt", true],
    ["*.txt", "dir/a.txt", false],
    ["**/*.txt", "dir/sub/a.txt", true],
    ["**/*.txt", "a.txt", true],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["*", ".env", true],
    ["**/.env", "deep/down/.env", true],
    ["{notes,docs}/*.md", "docs/a.md", true],
    ["{notes,docs}/*.md", "src/a.md", false],
    ["[a-c]x", "bx", true],
    ["[a-c]x", "dx", false],
    ["[!a-c]x", "dx", true],
    ["[!a-c]x", "bx", false],
    ["file?.txt", "file1.txt", true],
    ["file?.txt", "file10.txt", false],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
    ["!secrets/**", "notes/a", true],
    ["!secrets/**", "secrets/a", false],
    ["fs__*", "fs__read_file", true],
    ["fs__*", "web__fetch", false],
    ["?", "😀", true]
  ])("%s against %s: %s", (source, text, expected) => {
    expect(matches(source, text)).toBe(expected)
  })

  it("wildcards never match a . or .. segment; the literal does", () => {
    expect(matches("*", "..")).toBe(false)
    expect(matches("notes/**", "notes/../secrets/k")).toBe(false)
    expect(matches("**", "a/./b")).toBe(false)
    expect(matches("notes/../secrets/*", "notes/../secrets/k")).toBe(true)
  })
})

describe("Glob.compile refuses what it cannot match", () => {
  it.each([
    ["[", "missing closing ']' (use '\\[' for a literal '[')"],
    ["a]", "missing opening '[' (use '\\]' for a literal ']')"],
    ["{a,b", "missing closing '}' (use '\\{' for a literal '{')"],
    ["a}", "missing opening '{' (use '\\}' for a literal '}')"],
    ["{a}", "the group '{a}' has no ',' (write '{a,b}', or '\\{' for a literal '{')"],
    ["[z-a]", "the range 'z-a' is backwards"],
    ["a\\", "it ends with an escape '\\' that escapes nothing"],
    ["+(a|b)", "extglob patterns like '+(…)' are not supported (use '{a,b}' alternatives)"],
    ["[[:alpha:]]", "POSIX classes like '[[:alpha:]]' are not supported (write '[a-zA-Z]')"],
    ["", "a glob must not be empty"],
    ["!", "a glob must have a pattern after its '!'"],
    [
      "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}",
      "it expands to more than 256 patterns through its '{a,b}' groups"
    ],
    ["x".repeat(1025), "a glob must be at most 1024 characters long"]
  ])("%s", (source, problem) => {
    expect(Glob.compile(source)).toStrictEqual(Result.fail(problem))
  })

  it("a value that is not a string", () => {
    expect(Glob.compile(42)).toStrictEqual(Result.fail("a glob must be a string"))
  })
})

describe("Glob against picomatch 4.0.7 (dot: true)", () => {
  // The syntax both read alike: no `[!…]` (picomatch 4 reads it as the characters `!`, `a`–`c`);
  // texts without empty segments (picomatch's `*` needs a character at the start of a text); and
  // no trailing `/**` after a wildcard segment: here `x/**` always matches `x` itself too, where
  // picomatch matches `a` with `a/**` but not with `*/**`; and no `.` or `..` segment in texts:
  // here no wildcard matches one, where picomatch's `?`, `[.]` and `.*` do (only its `*` at the
  // start of a segment does not).
  const piece = fc.constantFrom("a", "b", ".", "-", "x.y", "*", "?", "[ab]", "[a-c]", "{a,b}", "\\*", ".a")
  const segment = fc.oneof(
    { weight: 1, arbitrary: fc.constant("**") },
    {
      weight: 6,
      arbitrary: fc
        .array(piece, { minLength: 1, maxLength: 3 })
        .map((p) => p.join(""))
        // `**` inside a segment is `*` here; picomatch reads `**{a,b}` otherwise.
        .filter((s) => !s.includes("**"))
    }
  )
  const globs = fc
    .array(segment, { minLength: 1, maxLength: 4 })
    .map((s) => s.join("/"))
    .filter((g) => Result.isSuccess(Glob.compile(g)) && !/(^|\/)[^/]*[*?[{][^/]*\/\*\*$/.test(g))
  const textSegment = fc
    .array(fc.constantFrom("a", "b", "c", ".", "-", "*"), { minLength: 1, maxLength: 4 })
    .map((c) => c.join(""))
    .filter((t) => t !== "." && t !== "..")
  const texts = fc.array(textSegment, { minLength: 1, maxLength: 5 }).map((s) => s.join("/"))

  /**
   * The one difference left in this syntax, documented in the README: picomatch's shortcut for
   * the whole globs `*.*` and `**\/*.*` wants a character after the last dot, so `a.` does not
   * match them there (though it matches `x.*`, `?.*` and `{a,b}.*` in picomatch itself). Here `*`
   * matches the empty text after a dot as everywhere else.
   */
  const documented = (source: string, text: string): boolean =>
    (source === "*.*" || source === "**/*.*") && /\.$/.test(text.split("/").at(-1) ?? "")

  it("agree on every generated glob and text, except exactly the documented difference (fixed seed)", () => {
    fc.assert(
      fc.property(globs, texts, (source, text) => {
        const ours = matches(source, text)
        const theirs = picomatch(source, { dot: true, windows: false })(text)
        // Where they differ, it is the documented case, in the documented direction.
        expect([source, text, ours, ours === theirs || (documented(source, text) && ours && !theirs)]).toStrictEqual([
          source,
          text,
          ours,
          true
        ])
      }),
      { numRuns: 5000, seed: 20261201 }
    )
  }, 60_000)

  it.each([
    ["*.*", "a."],
    ["**/*.*", "x/a."],
    ["*.*", "a.b."]
  ])("the documented difference: %s against %s", (source, text) => {
    const theirs = picomatch(source, { dot: true, windows: false })(text)
    expect([matches(source, text), theirs]).toStrictEqual(text === "a.b." ? [true, true] : [true, false])
  })

  it.each([
    ["[!a-c]x", "dx", true, false],
    ["*/**", "a", true, false],
    ["?", ".", false, true]
  ])("the other documented differences (outside the generated syntax): %s against %s", (source, text, ours, theirs) => {
    expect([matches(source, text), picomatch(source, { dot: true, windows: false })(text)]).toStrictEqual([
      ours,
      theirs
    ])
  })
})

describe("matching time is bounded by pattern × text", () => {
  // Each of these never finishes under picomatch's RegExp on such texts; here each is one pass.
  it("star-heavy globs against a million characters", () => {
    const flat = "a".repeat(1_000_000)
    const deep = `${"a/".repeat(500_000)}x`
    expect(matches("*a*a*a*a*a*a*a*a*b", flat)).toBe(false)
    expect(matches("**/a*a*a*a*a*/**/b", flat)).toBe(false)
    expect(matches("**/a/**/b/**/c", deep)).toBe(false)
    expect(matches("**/a/**/x", deep)).toBe(true)
  })
})
