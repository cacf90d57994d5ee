/**
 * Scenario patterns in linear time: what used to hang now answers at once, JavaScript's meaning
 * is kept where RE2 would read the same text differently, and what needs backtracking is refused
 * when the file is decoded, naming the JSON path.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as Pattern from "../src/Pattern.ts"
import * as ScenarioFile from "../src/ScenarioFile.ts"

const compiled = (source: string): RegExp => {
  const made = Pattern.make(source)
  if (Result.isFailure(made)) throw new Error(made.failure)
  return made.success
}

const refusal = (source: string): string => {
  const made = Pattern.make(source)
  return Result.isFailure(made) ? made.failure : "(accepted)"
}

describe("Pattern.make", () => {
  it("(a+)+$ against 'aaaa…b': no match, in linear time, through test, search and exec", () => {
    const evil = compiled("(a+)+$")
    const text = `${"a".repeat(100_000)}b`
    expect(evil.test(text)).toBe(false)
    expect(text.search(evil)).toBe(-1)
    expect(evil.exec(text)).toBeNull()
    expect(compiled("(x+x+)+y").test("x".repeat(100_000))).toBe(false)
  })

  it("matches as a RegExp does: test, search (the index), exec (groups), match", () => {
    const re = compiled("(?<n>\\d+) characters")
    expect(re).toBeInstanceOf(RegExp)
    expect(re.source).toBe("(?<n>\\d+) characters")
    expect(re.flags).toBe("")
    expect(re.test("wrote 12 characters to a.txt")).toBe(true)
    expect("wrote 12 characters".search(re)).toBe(6)
    const found = re.exec("wrote 12 characters")
    expect([found?.[0], found?.[1], found?.index, found?.groups?.n]).toEqual(["12 characters", "12", 6, "12"])
    expect("wrote 12 characters".match(re)?.[1]).toBe("12")
    expect(re.test("wrote twelve characters")).toBe(false)
  })

  it("keeps JavaScript's meaning of ., \\s and \\S, which RE2 reads otherwise", () => {
    for (const [source, text] of [
      [".", "\r"],
      [".", "\u2028"],
      ["a.b", "a\nb"],
      ["\\s", "\u00a0"],
      ["\\s", "\ufeff"],
      ["\\s", "\v"],
      ["[\\s]", "\u3000"],
      ["\\S", "\u00a0"],
      ["[^\\s]", " "],
      ["^a$", "a\n"],
      ["[^]", "\n"],
      ["\\u00e9", "é"],
      ["caf\\u00e9", "café"]
    ] as const) {
      expect([source, text, compiled(source).test(text)]).toEqual([source, text, new RegExp(source).test(text)])
    }
  })

  it("refuses what needs backtracking, or what JavaScript and RE2 read differently", () => {
    expect(refusal("(\\w+) \\1")).toBe(
      "not supported: a backreference (\\1) needs backtracking; patterns are matched in linear time (RE2)"
    )
    expect(refusal("(?<w>a)\\k<w>")).toMatch(/^not supported: a named backreference/)
    expect(refusal("a(?=b)")).toMatch(/^not supported: lookaround \(\(\?=…\)/)
    expect(refusal("a(?!b)")).toMatch(/^not supported: lookaround \(\(\?!…\)/)
    expect(refusal("(?<=a)b")).toMatch(/^not supported: lookaround \(\(\?<=…\)/)
    expect(refusal("(?<!a)b")).toMatch(/^not supported: lookaround \(\(\?<!…\)/)
    expect(refusal("\\p{L}")).toMatch(/^not supported: \\p\{…\} is ambiguous/)
    expect(refusal("\\u{41}")).toMatch(/^not supported: \\u\{…\} is ambiguous/)
    expect(refusal("[[:alpha:]]")).toMatch(/^not supported: \[: inside a character class/)
    expect(refusal("[\\S]")).toMatch(/^not supported: \\S inside a character class/)
    expect(refusal("a[]")).toMatch(/^not supported: an empty character class/)
    expect(refusal("(a{100}){100}")).toMatch(/^not supported: .*invalid repeat count/)
    expect(refusal("(")).toBe("invalid regular expression: /(/: Unterminated group")
    expect(refusal("[a-z]{1000}".repeat(20))).toMatch(/^too large: \d+ RE2 instructions, more than 10000$/)
  })

  it("a class may hold ], \\] and an escaped backslash; a dot in a class is a dot", () => {
    expect(compiled("[\\]a]").test("]")).toBe(true)
    expect(compiled("[.]").test("x")).toBe(false)
    expect(compiled("[\\\\]").test("\\")).toBe(true)
  })
})

describe("Pattern.compile: the two dialects of a JavaScript pattern", () => {
  const tag = (source: string, dialect: Pattern.Dialect) => {
    const made = Pattern.compile(source, dialect)
    return Result.isFailure(made) ? made.failure._tag : made.success.test("é") ? "matches é" : "compiled"
  }

  it("the unicode dialect (JSON Schema's pattern) reads \\p{…} and \\u{…} as the u flag does; plain refuses them", () => {
    expect(tag("\\p{L}", "unicode")).toBe("matches é")
    expect(tag("\\u{e9}", "unicode")).toBe("matches é")
    expect(tag("\\p{L}", "plain")).toBe("Unsupported")
    expect(tag("\\u{e9}", "plain")).toBe("Unsupported")
  })

  it("names each refusal: invalid in the dialect, unsupported, refused by RE2, too large", () => {
    expect(tag("\\q", "unicode")).toBe("Invalid")
    expect(tag("\\q", "plain")).toBe("compiled")
    expect(Pattern.compile("(", "plain")).toEqual(
      Result.fail({ _tag: "Invalid", message: "Invalid regular expression: /(/: Unterminated group" })
    )
    expect(Pattern.compile("a(?=b)", "unicode")).toEqual(
      Result.fail({ _tag: "Unsupported", reason: "lookaround ((?=…) needs backtracking" })
    )
    expect(tag("(a{100}){100}", "unicode")).toBe("NotCompiled")
    const large = Pattern.compile("[a-z]{1000}".repeat(20), "unicode")
    expect(Result.isFailure(large) && large.failure._tag === "TooLarge" && large.failure.size).toBeGreaterThan(
      Pattern.maxProgramSize
    )
  })
})

describe("patterns in scenario files", () => {
  const conversation = (pattern: string) =>
    JSON.stringify({
      format: 1,
      kind: "conversation",
      turns: [
        {
          reply: [{ type: "tool_use", id: "c1", name: "read", input: { path: "a" } }],
          expect: [{ type: "tool_result", tool_use_id: "c1", is_error: true, content: { pattern } }]
        },
        { reply: [{ type: "text", text: "done" }] }
      ],
      outcome: { stop: "end" }
    })

  it("an expected content pattern that needs backtracking: invalid, naming its JSON path", () => {
    const parsed = ScenarioFile.parse("c.json", conversation("(a)\\1"))
    expect(Result.isFailure(parsed) ? parsed.failure.message : "").toBe(
      "c.json: turns[0].expect[0].content.pattern: not supported: a backreference (\\1) needs backtracking; patterns are matched in linear time (RE2)"
    )
  })

  it("a planner rule's when.pattern: the same", () => {
    const plan = {
      format: 1,
      kind: "plan",
      goal: "g",
      planner: [
        { when: null, plan: [] },
        { when: { pattern: "x(?=y)" }, plan: [] }
      ],
      budgets: { maxSteps: 1, maxReplans: 0 },
      expect: { status: "failed", reason: "no_plan" }
    }
    const parsed = ScenarioFile.parse("p.json", JSON.stringify(plan))
    expect(Result.isFailure(parsed) ? parsed.failure.path : "").toBe("planner[1].when.pattern")
  })
})
