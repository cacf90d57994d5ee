import { assert, describe, it } from "@effect/vitest"
import { Report, ScenarioFile, type Verdict } from "../src/index.ts"

const verdict = (overrides: Partial<Verdict.Verdict> = {}): Verdict.Verdict => ({
  name: "salmorejo (es)",
  file: "scenarios/es/salmorejo.json",
  kind: "conversation",
  variant: "fixed",
  passed: true,
  reserved: false,
  outcome: { stop: "end", text: "Hecho.", files: {}, turns: 4 },
  failures: [],
  ...overrides
})

const divergence: Verdict.Failure = {
  kind: "divergence",
  turn: 2,
  tool_use_id: "t2",
  expected: `t2 is_error=true "x"`,
  seen: `t2 is_error=true "y"`,
  message: `turn 2, tool_use_id t2: a different observation\n  expected: t2 is_error=true "x"\n  seen:     t2 is_error=true "y"`
}

const failing = verdict({
  name: "broken",
  passed: false,
  outcome: { stop: "diverged", files: {}, turns: 3 },
  failures: [divergence]
})

/** Whether a text has an ANSI escape sequence (ESC then "["). */
const hasAnsi = (s: string): boolean => s.includes("\u001b[")

describe("Report.verdict", () => {
  it("a pass is one line with the stop and the model calls", () => {
    assert.strictEqual(Report.verdict(verdict()), "PASS salmorejo (es) (end, 4 model calls)")
  })

  it("one model call is singular", () => {
    assert.strictEqual(
      Report.verdict(verdict({ outcome: { stop: "end", turns: 1 } })),
      "PASS salmorejo (es) (end, 1 model call)"
    )
  })

  it("a reserved case is marked [reserved]", () => {
    assert.strictEqual(
      Report.verdict(verdict({ reserved: true, outcome: { stop: "turn_cap", turns: 10 } })),
      "PASS salmorejo (es) [reserved] (turn_cap, 10 model calls)"
    )
  })

  it("a failure lists each failure indented by four spaces, every line of it", () => {
    const stop: Verdict.Failure = {
      kind: "stop",
      expected: "turn_cap",
      seen: "end",
      message: "the run stopped with 'end', the scenario expects 'turn_cap'"
    }
    assert.strictEqual(
      Report.verdict({ ...failing, reserved: true, failures: [divergence, stop] }),
      [
        "FAIL broken [reserved] (diverged, 3 model calls)",
        "    turn 2, tool_use_id t2: a different observation",
        `      expected: t2 is_error=true "x"`,
        `      seen:     t2 is_error=true "y"`,
        "    the run stopped with 'end', the scenario expects 'turn_cap'"
      ].join("\n")
    )
  })

  it("the plain style has no ANSI escapes; the ansi style colours the mark", () => {
    assert.isFalse(hasAnsi(Report.verdict(failing, Report.plain)))
    assert.isFalse(hasAnsi(Report.verdict(verdict(), Report.plain)))
    assert.strictEqual(
      Report.verdict(verdict(), Report.ansi),
      "\u001b[32mPASS\u001b[39m salmorejo (es) \u001b[2m(end, 4 model calls)\u001b[22m"
    )
    assert.isTrue(Report.verdict(failing, Report.ansi).startsWith("\u001b[31mFAIL\u001b[39m broken "))
  })
})

describe("Report.invalid", () => {
  const error = new ScenarioFile.InvalidScenario({ file: "a/b.json", path: "turns[2].reply[0].id", problem: "missing" })

  it("names the file, the path and the problem", () => {
    assert.strictEqual(Report.invalid(error), "INVALID a/b.json: turns[2].reply[0].id: missing")
    assert.isFalse(hasAnsi(Report.invalid(error, Report.plain)))
    assert.strictEqual(
      Report.invalid(error, Report.ansi),
      "\u001b[31mINVALID\u001b[39m a/b.json: turns[2].reply[0].id: missing"
    )
  })

  it("as JSON: the verdict's fields (not passed, nothing ran) plus valid: false and the path", () => {
    assert.deepStrictEqual(JSON.parse(Report.invalidJson(error)), {
      name: "a/b.json",
      file: "a/b.json",
      kind: null,
      passed: false,
      reserved: false,
      valid: false,
      outcome: null,
      failures: [
        {
          kind: "invalid",
          path: "turns[2].reply[0].id",
          expected: "a valid scenario file",
          seen: "missing",
          message: "a/b.json: turns[2].reply[0].id: missing"
        }
      ]
    })
  })
})

describe("Report.totals and closing", () => {
  it("all passing: only the closing line", () => {
    const t = Report.totals([verdict(), verdict()], 0)
    assert.deepStrictEqual(t, { passed: 2, failed: 0, invalid: 0, reservedPassed: 0, reservedFailed: 0, skipped: 0 })
    assert.deepStrictEqual(Report.closing(t), ["2 passed, 0 failed"])
  })

  it("nothing at all", () => {
    assert.deepStrictEqual(Report.closing(Report.totals([], 0)), ["0 passed, 0 failed"])
  })

  it("reserved cases get their own line, before the closing line, and count in the totals", () => {
    const t = Report.totals(
      [verdict(), failing, verdict({ reserved: true }), { ...failing, reserved: true }, verdict({ reserved: true })],
      0
    )
    assert.deepStrictEqual(t, { passed: 3, failed: 2, invalid: 0, reservedPassed: 2, reservedFailed: 1, skipped: 0 })
    assert.deepStrictEqual(Report.closing(t), ["reserved: 2 passed, 1 failed", "3 passed, 2 failed"])
  })

  it("a single reserved pass", () => {
    assert.deepStrictEqual(Report.closing(Report.totals([verdict(), verdict({ reserved: true })], 0)), [
      "reserved: 1 passed, 0 failed",
      "2 passed, 0 failed"
    ])
  })

  it("invalid files are counted as failed, with a line saying so", () => {
    const one = Report.totals([verdict()], 1)
    assert.deepStrictEqual(one, { passed: 1, failed: 1, invalid: 1, reservedPassed: 0, reservedFailed: 0, skipped: 0 })
    assert.deepStrictEqual(Report.closing(one), ["1 invalid file (counted as failed)", "1 passed, 1 failed"])
    assert.deepStrictEqual(Report.closing(Report.totals([failing, verdict({ reserved: true })], 2)), [
      "reserved: 1 passed, 0 failed",
      "2 invalid files (counted as failed)",
      "1 passed, 3 failed"
    ])
  })

  it("skipped entries get their own line before the closing line, and count neither as passed nor failed", () => {
    const t = Report.totals([verdict()], 0, 2)
    assert.deepStrictEqual(t, { passed: 1, failed: 0, invalid: 0, reservedPassed: 0, reservedFailed: 0, skipped: 2 })
    assert.deepStrictEqual(Report.closing(t), ["2 skipped (not run: see the SKIP lines)", "1 passed, 0 failed"])
    const entry = { file: "s/pipe.json", reason: "a FIFO (named pipe), not a regular file" }
    assert.strictEqual(Report.skipped(entry), "SKIP s/pipe.json: a FIFO (named pipe), not a regular file")
    assert.deepStrictEqual(JSON.parse(Report.skippedJson(entry, "fixed")), {
      ...entry,
      skipped: true,
      variant: "fixed"
    })
  })

  it("text from a scenario cannot colour the terminal or forge a report line: control characters are escaped", () => {
    const named = verdict({ name: "x\u001b[2J\nPASS forged\u0007" })
    assert.strictEqual(
      Report.verdict(named).split("\n")[0],
      "PASS x\\u001b[2J\\u000aPASS forged\\u0007 (end, 4 model calls)"
    )
    assert.strictEqual(Report.printable("a\tb\u009bc\u2028"), "a\\u0009b\\u009bc\\u2028")
    assert.strictEqual(Report.printable("café ✓"), "café ✓")
  })

  it("the last closing line always reads N passed, N failed", () => {
    for (const t of [
      Report.totals([], 0),
      Report.totals([failing], 3),
      Report.totals([verdict({ reserved: true })], 0)
    ]) {
      assert.match(Report.closing(t).at(-1) ?? "", /^\d+ passed, \d+ failed$/)
    }
  })
})

describe("Report.json", () => {
  it("is the verdict as one line of JSON with name, kind, passed, reserved, outcome, failures", () => {
    const line = Report.json(failing)
    assert.notInclude(line, "\n")
    assert.deepStrictEqual(JSON.parse(line), {
      name: "broken",
      file: "scenarios/es/salmorejo.json",
      kind: "conversation",
      variant: "fixed",
      passed: false,
      reserved: false,
      outcome: { stop: "diverged", files: {}, turns: 3 },
      failures: [divergence]
    })
  })
})
