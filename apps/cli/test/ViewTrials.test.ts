/**
 * `harness view DIR/report.jsonl` of a trials report (written here by hand after the report
 * contract): the page has the charts in its HTML and the failing trials' traces from
 * `DIR/traces/` as conversation traces, each bar linked to one; a trace that is missing leaves
 * its trial named by path, exit 0.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import type { Model } from "@agent-harness/viewer"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { harness, SLOW } from "./fixtures/harness.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("view-trials")
afterAll(() => temp.remove())

const dataOpen = '<script id="viewer-data" type="application/json">'
const modelOf = (html: string): Model.Page => {
  const start = html.indexOf(dataOpen)
  return JSON.parse(html.slice(start + dataOpen.length, html.indexOf("</script>", start))) as Model.Page
}

const caseLine = (variant: string, passes: number, failing: ReadonlyArray<number>, cost?: number) => ({
  type: "trials.case",
  file: "cases/salmorejo.json",
  name: "salmorejo list",
  variant,
  reserved: false,
  trials: 4,
  passes,
  rate: { passes, n: 4, rate: passes / 4, low: 0, high: 1 },
  confidence: 0.95,
  passAtK: [1, 1, 1, 1],
  passHatK: [passes / 4, 0, 0, 0],
  threshold: { minPassRate: 0.5 },
  met: passes >= 2,
  failing: failing.map((i) => ({
    index: i,
    stop: "max_turns",
    failures: [{ kind: "expect", message: "no garlic" }],
    trace: `traces/salmorejo.${variant}.${i}.jsonl`,
    scenario: `captured/salmorejo.${variant}.${i}.json`
  })),
  usage: { inputTokens: 10 },
  ...(cost === undefined ? {} : { cost, costed: 4 }),
  durationMs: 100,
  resumed: 0
})

const trace = [
  { type: "run.started", messages: [{ role: "user", content: "hi" }], max_turns: 3, tools: [] },
  { type: "model.requested", turn: 1, messages: 1 },
  { type: "model.replied", turn: 1, reply: [{ type: "text", text: "hello" }] },
  { type: "run.ended", stop: "end_turn", text: "hello", turns: 1 }
]
  .map((e) => JSON.stringify(e))
  .join("\n")

describe("harness view of a trials report", () => {
  it("draws the charts and brings the failing trials' traces from the report's folder onto the page", SLOW, () => {
    const dir = temp.path("harness-trials")
    mkdirSync(`${dir}/traces`, { recursive: true })
    const lines = [
      caseLine("before", 1, [0, 2, 3]),
      caseLine("fixed", 3, [1], 0.0123),
      {
        type: "trials.comparison",
        file: null,
        name: "all cases",
        a: "before",
        b: "fixed",
        n: 4,
        both: 1,
        b10: 0,
        b01: 2,
        neither: 1,
        aRate: 0.25,
        bRate: 0.75,
        difference: 0.5,
        interval: { low: -0.1, high: 0.8 },
        confidence: 0.95,
        pValue: 0.5,
        verdict: "within noise"
      },
      { type: "trials.summary", model: "test:model", trialsPerCase: 4, variants: ["before", "fixed"] }
    ]
    writeFileSync(`${dir}/report.jsonl`, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`)
    // Trial 3 of before has no trace on disk: it is named by path, not linked.
    for (const name of ["salmorejo.before.0", "salmorejo.before.2", "salmorejo.fixed.1"])
      writeFileSync(`${dir}/traces/${name}.jsonl`, trace)
    const out = temp.path("trials.html")
    const r = harness(["view", `${dir}/report.jsonl`, "--out", out])
    assert.strictEqual(r.code, 0, r.stderr)
    expect(r.stderr).toBe(`wrote ${out}: 1 trials report, 3 conversation traces\n`)
    const html = readFileSync(out, "utf8")
    expect(html).toContain('<svg class="trials-chart rates"')
    expect(html).toContain('<svg class="trials-chart differences"')
    const page = modelOf(html)
    expect(page.files.map((f) => [f.kind, f.name])).toStrictEqual([
      ["trials", `${dir}/report.jsonl`],
      ["conversation", `${dir}/traces/salmorejo.before.0.jsonl`],
      ["conversation", `${dir}/traces/salmorejo.before.2.jsonl`],
      ["conversation", `${dir}/traces/salmorejo.fixed.1.jsonl`]
    ])
    const trials = page.files[0]
    assert(trials?.kind === "trials")
    expect(trials.cases.map((c) => c.failing.map((f) => f.trace))).toStrictEqual([["#f2", "#f3", null], ["#f4"]])
    expect([...html.matchAll(/<a class="bar-link" href="([^"]*)"/g)].map((m) => m[1])).toStrictEqual(["#f2", "#f4"])
    expect(html).toContain(`trace <code>${dir}/traces/salmorejo.before.3.jsonl</code> (not loaded)`)
    // The table's cost column: the priced line's money, `no price` for the line without one.
    expect(trials.cases.map((c) => c.cost)).toStrictEqual([null, 0.0123])
    expect(html).toContain('<th scope="col">cost</th>')
    expect(html).toContain("<td>10</td><td>no price</td>")
    expect(html).toContain("<td>10</td><td>$0.0123</td>")
  })
})
