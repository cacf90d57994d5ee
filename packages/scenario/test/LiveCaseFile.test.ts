/**
 * Live cases in the scenario format: every field decodes, and every bad input is refused with
 * its JSON path (a check's own, not a union's), a pattern that does not compile with its path,
 * an empty or missing criterion and an empty threshold with why.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { LiveCase, ScenarioFile } from "../src/index.ts"
import { problemOf } from "./fixtures/files.ts"
import { decodeLive, LIVE_FILE, liveJson } from "./fixtures/live.ts"

const invalid = (extra: Record<string, unknown>): string => problemOf(LIVE_FILE, liveJson(extra))

describe("live cases: decoding", () => {
  it("decodes every field, named after the file when it has no name", () => {
    const every = {
      name: "adds eggs",
      reserved: true,
      locale: "es",
      system: "Be brief.",
      user: "Añade huevos.",
      tools: { lookup: { results: [{ ok: "found" }] } },
      policy: { rules: [] },
      untrustedOutput: true,
      maxTurns: 4,
      pass: [
        { text: "done" },
        { text: { pattern: "^do" } },
        { file: "list.txt", content: "bread, eggs" },
        { file: "list.txt", content: { pattern: "eggs$" } },
        { file: "old.txt", absent: true },
        { observation: { content: { pattern: "not executed" }, is_error: true }, seen: false },
        { observation: {}, seen: true },
        { call: { name: "write", input: { path: "list.txt" } }, made: true },
        { call: { name: "delete" }, made: false },
        { stop: "end" }
      ],
      threshold: { minPassRate: 0.8, minLowerBound: 0.5 }
    }
    const live = decodeLive(liveJson(every))
    expect(live.kind).toBe("live")
    expect(live.name).toBe("adds eggs")
    expect(live.reserved).toBe(true)
    expect(live.file).toStrictEqual({ ...liveJson(every) })
    expect(LiveCase.threshold(live)).toStrictEqual({ minPassRate: 0.8, minLowerBound: 0.5 })
    const bare = decodeLive(liveJson())
    expect(bare.name).toBe("live")
    expect(bare.reserved).toBe(false)
    expect(LiveCase.threshold(bare)).toStrictEqual({ minPassRate: 1 })
    expect(ScenarioFile.kinds).toContain("live")
  })

  it("decodes a root folder instead of files, and mcp servers", () => {
    const { files: _files, ...withoutFiles } = liveJson()
    const live = decodeLive({
      ...withoutFiles,
      root: "fixtures/project",
      mcp: [{ prefix: "echo", command: "node", args: ["server.js"] }]
    })
    expect(live.file.root).toBe("fixtures/project")
    expect(live.file.mcp?.[0]?.prefix).toBe("echo")
  })

  it("refuses a missing or empty criterion, saying a live case needs one written before running", () => {
    const { pass: _pass, ...withoutPass } = liveJson()
    expect(problemOf(LIVE_FILE, withoutPass)).toBe(
      "pass: missing: a live case needs a criterion written before running (a list of checks that must all hold)"
    )
    expect(invalid({ pass: [] })).toBe(
      "pass: empty: a live case needs a criterion written before running (a list of checks that must all hold)"
    )
    expect(invalid({ pass: { text: "done" } })).toMatch(/^pass: expected array/)
  })

  it("names a bad check at its own path", () => {
    expect(invalid({ pass: [{ text: "done" }, { content: "eggs" }] })).toBe("pass[1].file: missing")
    expect(invalid({ pass: [{ file: "a.txt" }] })).toMatch(/^pass\[0\]: a file check gives "content"/)
    expect(invalid({ pass: [{ file: "a.txt", content: "x", absent: true }] })).toMatch(/^pass\[0\]: a file check/)
    expect(invalid({ pass: [{ file: "a.txt", absent: false }] })).toMatch(
      /^pass\[0\]\.absent: expected true, got false/
    )
    expect(invalid({ pass: [{ file: "", absent: true }] })).toMatch(/^pass\[0\]\.file: /)
    expect(invalid({ pass: [{ text: 3 }] })).toMatch(/^pass\[0\]\.text: expected a string or \{ "pattern": regex \}/)
    expect(invalid({ pass: [{ seen: true }] })).toBe("pass[0].observation: missing")
    expect(invalid({ pass: [{ observation: {} }] })).toBe("pass[0].seen: missing")
    expect(invalid({ pass: [{ observation: { is_error: "yes" }, seen: true }] })).toMatch(
      /^pass\[0\]\.observation\.is_error: expected boolean/
    )
    expect(invalid({ pass: [{ observation: { status: "x" }, seen: true }] })).toBe(
      "pass[0].observation.status: unexpected field"
    )
    expect(invalid({ pass: [{ made: false }] })).toBe("pass[0].call: missing")
    expect(invalid({ pass: [{ call: { name: "write", input: [1] }, made: true }] })).toMatch(
      /^pass\[0\]\.call\.input: expected object, got \[1\]/
    )
    expect(invalid({ pass: [{ call: { input: {} }, made: true }] })).toBe("pass[0].call.name: missing")
    expect(invalid({ pass: [{ stop: "finished" }] })).toMatch(/^pass\[0\]\.stop: expected "end" \| "turn_cap"/)
    expect(invalid({ pass: [{ text: "done", stop: "end" }] })).toMatch(
      /^pass\[0\]: a check checks one thing: "text" and "stop" are 2 checks/
    )
    expect(invalid({ pass: [{ txt: "done" }] })).toMatch(/^pass\[0\]: expected a check: an object with "text", "file"/)
    expect(invalid({ pass: ["done"] })).toMatch(/^pass\[0\]: expected a check/)
    expect(invalid({ pass: [null] })).toMatch(/^pass\[0\]: expected a check/)
    expect(invalid({ pass: [{ text: "done", extra: 1 }] })).toBe("pass[0].extra: unexpected field")
  })

  it("refuses a pattern that does not compile, or needs backtracking, at its path", () => {
    expect(invalid({ pass: [{ stop: "end" }, { text: { pattern: "(" } }] })).toMatch(/^pass\[1\]\.text\.pattern: /)
    expect(invalid({ pass: [{ file: "a", content: { pattern: "(a)\\1" } }] })).toMatch(
      /^pass\[0\]\.content\.pattern: not supported: a backreference/
    )
    expect(invalid({ pass: [{ observation: { content: { pattern: "(?=x)" } }, seen: true }] })).toMatch(
      /^pass\[0\]\.observation\.content\.pattern: not supported: lookaround/
    )
  })

  it("refuses a bad threshold at its path", () => {
    expect(invalid({ threshold: {} })).toMatch(/^threshold: empty: give "minPassRate", "minLowerBound" or both/)
    expect(invalid({ threshold: { minPassRate: 1.5 } })).toMatch(
      /^threshold\.minPassRate: expected a value between 0 and 1/
    )
    expect(invalid({ threshold: { minLowerBound: -0.1 } })).toMatch(
      /^threshold\.minLowerBound: expected a value between/
    )
    expect(invalid({ threshold: { min_pass_rate: 0.5 } })).toBe("threshold.min_pass_rate: unexpected field")
  })

  it("refuses the other fields as the conversation kind does", () => {
    const { user: _user, ...withoutUser } = liveJson()
    expect(problemOf(LIVE_FILE, withoutUser)).toBe("user: missing")
    expect(invalid({ root: "project" })).toMatch(/^root: the files come from the "root" folder or from "files"/)
    expect(invalid({ maxTurns: 0 })).toMatch(/^maxTurns: expected a value greater than or equal to 1/)
    expect(invalid({ untrustedOutput: true })).toMatch(/^untrustedOutput: it belongs to the permission gate/)
    expect(invalid({ approvals: [] })).toBe("approvals: unexpected field")
    expect(invalid({ turns: [] })).toBe("turns: unexpected field")
    expect(invalid({ locale: "fr" })).toMatch(/^locale: expected "en" \| "es"/)
    expect(invalid({ tools: { lookup: { results: [{ status: "ok" }] } } })).toMatch(/^tools\.lookup\.results\[0\]/)
    expect(invalid({ mcp: [{ prefix: "a" }, { prefix: "a", command: "x" }] })).toMatch(/^mcp\[0\]/)
  })

  it("parses a file's text with the same paths, and a value whose fields throw is refused, not a crash", () => {
    const parsed = ScenarioFile.parse(LIVE_FILE, JSON.stringify(liveJson({ pass: [{ content: "x" }] })))
    expect(Result.isFailure(parsed) && parsed.failure.message).toBe(`${LIVE_FILE}: pass[0].file: missing`)
    const hostile = liveJson({
      pass: [
        Object.defineProperty({}, "text", {
          enumerable: true,
          get: () => {
            throw new Error("no")
          }
        })
      ]
    })
    const decoded = ScenarioFile.decode(LIVE_FILE, hostile)
    expect(Result.isFailure(decoded) && decoded.failure.problem).toMatch(/^cannot be read/)
    expect(Result.isFailure(decoded) && decoded.failure.path).toBe("(root)")
  })
})
