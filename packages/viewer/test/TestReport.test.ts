import { Report, type Verdict } from "@agent-harness/scenario"
import { describe, expect, it } from "@effect/vitest"
import { Lines, type Model, TestReport } from "../src/index.ts"
import { report } from "./fixtures.ts"

const source = (name: string, text: string): TestReport.Source => ({ name, read: Lines.read(text) })

const both = (traces: ReadonlyArray<{ readonly id: string; readonly name: string }> = []): Model.Report =>
  TestReport.fromSources(
    "f1",
    [source("before.jsonl", report("before")), source("fixed.jsonl", report("fixed"))],
    traces
  )

const verdicts = (row: Model.Row) => row.cells.map((c) => c?.verdict ?? null)

/** The verdict lines `harness test --json` prints are lines the viewer reads (checked by the compiler). */
export const printed = (verdict: Verdict.Verdict): TestReport.Line => verdict

describe("TestReport.fromSources", () => {
  it("puts the variants side by side, one column each, with the totals `harness test` counts", () => {
    const r = both()
    expect(r.problems).toStrictEqual([])
    expect(
      r.columns.map((c) => [c.label, c.file, c.passed, c.failed, c.invalid, c.reservedPassed, c.reservedFailed])
    ).toStrictEqual([
      ["before", "before.jsonl", 2, 4, 1, 0, 2],
      ["fixed", "fixed.jsonl", 5, 1, 1, 2, 0]
    ])
  })

  it("gives a row per scenario and per case, the reserved ones apart", () => {
    const r = both()
    expect(r.rows.map((row) => [row.case ?? row.name, ...verdicts(row)])).toStrictEqual([
      ["salmorejo (en)", "pass", "pass"],
      ["catalogue: a TIMEOUT reaches the model as an error", "fail", "pass"],
      ["catalogue.search: response contract", "fail", "pass"],
      ["reg-001", "fail", "pass"],
      ["ctl-001", "pass", "pass"],
      ["plan: replan once", "pass", "pass"],
      ["scenarios/broken.json", "invalid", "invalid"]
    ])
    expect(r.reserved.map((row) => [row.case ?? row.name, row.role, ...verdicts(row)])).toStrictEqual([
      ["res-001", "reserved", "fail", "pass"],
      ["held out: unavailable", null, "fail", "pass"]
    ])
    const timeout = r.rows[1]?.cells[0]
    expect(timeout?.summary).toBe("diverged, 2 model calls")
    expect(timeout?.failures[0]).toMatch(/^turn 1, tool_use_id c1: a different observation/)
    expect(r.rows[3]?.cells[0]?.failures).toStrictEqual(['expected: {"ok":false}\nseen:     {"ok":true}'])
    expect(r.rows[6]?.cells[0]?.failures).toStrictEqual(["scenarios/broken.json: turns[0].reply: expected an array"])
  })

  it("names the file when two columns have the same variant, and leaves a cell empty where a column has no such row", () => {
    const one = Report.json(conversationVerdict("only here", "x.json"))
    const r = TestReport.fromSources("f1", [source("a.jsonl", report("fixed")), source("b.jsonl", one)], [])
    expect(r.columns.map((c) => c.label)).toStrictEqual(["fixed (a.jsonl)", "fixed (b.jsonl)"])
    expect(verdicts(r.rows[0] as Model.Row)).toStrictEqual(["pass", null])
    expect(verdicts(r.rows.find((row) => row.name === "only here") as Model.Row)).toStrictEqual([null, "pass"])
  })

  it("links a row to its trace: the one its line names, else the only one with its file's stem", () => {
    const withTrace = (trace: string) =>
      JSON.stringify({ ...JSON.parse(Report.json(conversationVerdict("a", "s/a.json"))), trace })
    const traces = [
      { id: "f2", name: "runs/a.jsonl" },
      { id: "f3", name: "runs/salmorejo.jsonl" }
    ]
    const named = TestReport.fromSources("f1", [source("r.jsonl", withTrace("runs/a.jsonl"))], traces)
    expect(named.rows[0]?.cells[0]?.trace).toBe("#f2")
    const elsewhere = TestReport.fromSources("f1", [source("r.jsonl", withTrace("other/b.jsonl"))], traces)
    expect(elsewhere.rows[0]?.cells[0]?.trace).toBe("other/b.jsonl")
    const byStem = TestReport.fromSources("f1", [source("r.jsonl", report("fixed"))], traces)
    expect(byStem.rows[0]?.cells[0]?.trace).toBe("#f3")
    const ambiguous = TestReport.fromSources(
      "f1",
      [
        source(
          "r.jsonl",
          [report("fixed"), Report.json(conversationVerdict("es", "scenarios/es/salmorejo.json"))].join("\n")
        )
      ],
      traces
    )
    expect(ambiguous.rows[0]?.cells[0]?.trace).toBeNull()
  })

  it("names a line that is not a verdict by file, line and JSON path, and reads the rest", () => {
    const text = [report("fixed"), '{"name":"x","passed":true}', "not json"].join("\n")
    const r = TestReport.fromSources("f1", [source("fixed.jsonl", text)], [])
    expect(r.problems.map((p) => [p.file, p.line, p.path, p.path === "(line)" ? "" : p.message])).toStrictEqual([
      ["fixed.jsonl", 8, "(line)", ""],
      ["fixed.jsonl", 7, "file", "missing"]
    ])
    expect(r.rows).toHaveLength(7)
  })
})

const conversationVerdict = (name: string, file: string): Verdict.Verdict => ({
  name,
  file,
  kind: "conversation",
  variant: "fixed",
  passed: true,
  reserved: false,
  outcome: { stop: "end", turns: 1 },
  failures: []
})
