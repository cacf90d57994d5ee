import { describe, expect, it } from "@effect/vitest"
import { Html, Input, Lines, type Model, TrialsChart, TrialsReport } from "../src/index.ts"
import { caseLine, comparisonLine, summaryLine, text, trace, twoVariants } from "./trials.ts"

const read = (body: string, traces: ReadonlyArray<{ readonly id: string; readonly name: string }> = []) =>
  TrialsReport.fromLines("f1", "runs/harness-trials/report.jsonl", Lines.read(body), traces)

/** Every element `<tag …>` of a markup text whose attributes contain `has`, as attribute maps. */
const elements = (markup: string, tag: string, has = ""): ReadonlyArray<Record<string, string>> =>
  [...markup.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, "g"))]
    .map((m) => m[1] ?? "")
    .filter((attrs) => attrs.includes(has))
    .map((attrs) => Object.fromEntries([...attrs.matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])))

describe("TrialsReport.fromLines", () => {
  it("reads every case, comparison and the summary's model; extra fields are ignored", () => {
    const r = read(twoVariants())
    expect(r.problems).toStrictEqual([])
    expect(r.model).toBe("anthropic:claude-test")
    expect(r.cases.map((c) => [c.name, c.variant, c.passes, c.trials, c.rate, c.met, c.reserved])).toStrictEqual([
      ["salmorejo list", "before", 7, 10, 0.7, true, false],
      ["salmorejo list", "fixed", 9, 10, 0.9, true, false],
      ["held out", "before", 3, 10, 0.3, false, true]
    ])
    const [before] = r.cases
    expect(before?.tokens).toBe(1500)
    expect(before?.minPassRate).toBe(0.6)
    expect(before?.minLowerBound).toBeNull()
    expect(r.cases[2]?.tokens).toBeNull()
    expect(r.comparisons.map((c) => [c.name, c.difference, c.low, c.high, c.verdict])).toStrictEqual([
      ["salmorejo list", 0.2, -0.12, 0.48, "within noise"],
      ["all cases", 0.1, -0.05, 0.25, "within noise"]
    ])
  })

  it("links a failing trial to the page's trace named from the report's folder, and names the rest by path", () => {
    const r = read(twoVariants(), [
      { id: "f2", name: "runs/harness-trials/traces/salmorejo.before.5.jsonl" },
      { id: "f3", name: "traces/salmorejo.before.2.jsonl" }
    ])
    const failing = r.cases[0]?.failing ?? []
    expect(failing.map((f) => [f.index, f.trace, f.tracePath, f.scenario])).toStrictEqual([
      [2, null, "runs/harness-trials/traces/salmorejo.before.2.jsonl", "captured/salmorejo.before.2.json"],
      [5, "#f2", "runs/harness-trials/traces/salmorejo.before.5.jsonl", "captured/salmorejo.before.5.json"],
      [8, null, "runs/harness-trials/traces/salmorejo.before.8.jsonl", "captured/salmorejo.before.8.json"]
    ])
    expect(r.cases[1]?.failing[0]?.captureError).toBe("the trace has no model reply")
    expect(r.cases[1]?.failing[0]?.scenario).toBeNull()
  })

  it("refuses a missing, non-finite or out-of-range number, naming the line and the field", () => {
    const body = [
      JSON.stringify(caseLine()),
      JSON.stringify(caseLine({ rate: { passes: 7, n: 10, rate: null, low: 0.3, high: 0.9 } })),
      JSON.stringify(caseLine()).replace('"durationMs":4321', '"durationMs":1e999'),
      JSON.stringify(caseLine({ passes: 11 })),
      JSON.stringify(caseLine({ rate: { passes: 7, n: 10, rate: 0.7, low: 0.8, high: 0.9 } })),
      JSON.stringify(caseLine({ passHatK: [0.7, 1.5] })),
      JSON.stringify(comparisonLine({ interval: { low: 0.5, high: -0.5 } })),
      JSON.stringify(comparisonLine({ difference: "NaN" })),
      "{ not json",
      JSON.stringify({ type: "trials.case" }),
      JSON.stringify(caseLine({ failing: [{ index: 0, stop: null, trace: "t.jsonl" }] })),
      // A failing trial without a trace (the runner wrote none) reads.
      JSON.stringify(caseLine({ failing: [{ index: 0, stop: null, failures: [] }] }))
    ].join("\n")
    const r = read(body)
    expect(r.cases).toHaveLength(2)
    expect(r.cases[1]?.failing.map((f) => [f.tracePath, f.trace])).toStrictEqual([[null, null]])
    expect(TrialsChart.table(r)).toContain("trial 0: no trace")
    expect(r.comparisons).toHaveLength(0)
    const seen = r.problems.map((p) => [p.line, p.path])
    expect(seen).toStrictEqual([
      [9, "(line)"],
      [2, "rate.rate"],
      [3, "durationMs"],
      [4, "passes"],
      [5, "rate"],
      [6, "passHatK[1]"],
      [7, "interval"],
      [8, "difference"],
      [10, "file"],
      [11, "failing[0].failures"]
    ])
    for (const p of r.problems.slice(1)) expect(p.message).toMatch(/^trials\.(case|comparison): /)
  })

  it("resolves trace paths inside the report's folder only", () => {
    expect(TrialsReport.resolve("a/b/report.jsonl", "traces/x.jsonl")).toBe("a/b/traces/x.jsonl")
    expect(TrialsReport.resolve("report.jsonl", "./traces/x.jsonl")).toBe("traces/x.jsonl")
    expect(TrialsReport.resolve("C:\\r\\report.jsonl", "traces\\x.jsonl")).toBe("C:\\r\\traces/x.jsonl")
    for (const bad of ["/etc/passwd", "../x.jsonl", "traces/../../x", "C:/x", "\\\\host\\x", "", "a\u0000b"])
      expect(TrialsReport.resolve("d/report.jsonl", bad), JSON.stringify(bad)).toBeNull()
  })

  it("lists the traces to load, each once, never one outside the folder, at most maxLinked", () => {
    const body = text([
      caseLine(),
      caseLine({ failing: [{ index: 0, stop: null, failures: [], trace: "../../secret.jsonl" }] }),
      caseLine({ failing: [{ index: 2, stop: null, failures: [], trace: "traces/salmorejo.before.2.jsonl" }] })
    ])
    expect(TrialsReport.linked("d/report.jsonl", Lines.read(body))).toStrictEqual([
      "d/traces/salmorejo.before.2.jsonl",
      "d/traces/salmorejo.before.5.jsonl",
      "d/traces/salmorejo.before.8.jsonl"
    ])
    const many = text([
      caseLine({
        failing: Array.from({ length: 500 }, (_, i) => ({ index: i, stop: null, failures: [], trace: `t/${i}.jsonl` }))
      })
    ])
    expect(TrialsReport.linked("report.jsonl", Lines.read(many))).toHaveLength(TrialsReport.maxLinked)
  })
})

describe("Input: trials reports", () => {
  it("detects a trials report by its lines, not its name", () => {
    const body = twoVariants()
    expect(Input.detect(body, Lines.read(body))).toStrictEqual({ kind: "trials" })
    const comparisonsOnly = text([comparisonLine()])
    expect(Input.detect(comparisonsOnly, Lines.read(comparisonsOnly))).toStrictEqual({ kind: "trials" })
    const t = trace(1)
    expect(Input.detect(t, Lines.read(t))).toStrictEqual({ kind: "conversation" })
  })

  it("links a bar to its trace loaded with the report (Input.linked), which the page draws as a conversation", () => {
    const report = { name: "out/report.jsonl", text: twoVariants() }
    const wanted = Input.linked([report])
    expect(wanted).toStrictEqual([
      "out/traces/salmorejo.before.2.jsonl",
      "out/traces/salmorejo.before.5.jsonl",
      "out/traces/salmorejo.before.8.jsonl",
      "out/traces/salmorejo.fixed.4.jsonl"
    ])
    const page = Input.page([report, ...wanted.map((name, i) => ({ name, text: trace(i + 1) }))])
    expect(page.files.map((f) => f.kind)).toStrictEqual([
      "trials",
      "conversation",
      "conversation",
      "conversation",
      "conversation"
    ])
    const trials = page.files[0] as Model.Trials
    expect(trials.cases[0]?.failing.map((f) => f.trace)).toStrictEqual(["#f2", "#f3", "#f4"])
    expect(trials.cases[1]?.failing.map((f) => f.trace)).toStrictEqual(["#f5"])
    // An input already given is not asked for again.
    expect(Input.linked([report, { name: wanted[0] as string, text: trace(1) }])).toHaveLength(3)
    const html = Html.fromPage(page)
    const bars = elements(html, "a", 'class="bar-link"')
    expect(bars.map((a) => a.href)).toStrictEqual(["#f2", "#f5"])
    expect(page.files[1]?.kind === "conversation" && page.files[1].turns.length).toBe(1)
  })
})

describe("TrialsChart", () => {
  const r = read(twoVariants(), [{ id: "f2", name: "runs/harness-trials/traces/salmorejo.before.2.jsonl" }])
  const svg = TrialsChart.rates(r)
  const { axisX, axisWidth } = TrialsChart.layout

  it("draws a bar as long as its rate: 70% is 70% of the axis, the whisker ends at low and high", () => {
    const bars = elements(svg, "rect", 'class="bar ')
    expect(bars.map((b) => Number(b.width) / axisWidth)).toStrictEqual([0.7, 0.9, 0.3])
    expect(bars.every((b) => Number(b.x) === axisX)).toBe(true)
    expect(bars.map((b) => b.class)).toStrictEqual(["bar met", "bar met", "bar not-met"])
    const whiskers = elements(svg, "line", 'class="whisker"')
    // The whisker's ends are at low and high: 260 + 0.3968 × 400 = 418.72, and so on.
    expect(axisX).toBe(260)
    expect(whiskers.map((w) => [Number(w.x1), Number(w.x2)])).toStrictEqual([
      [418.72, 616.88],
      [498.32, 652.84],
      [303.12, 501.28]
    ])
    expect(elements(svg, "line", "min-pass-rate").map((t) => (Number(t.x1) - axisX) / axisWidth)).toStrictEqual([
      0.6, 0.6
    ])
    expect(elements(svg, "path", "min-lower-bound")).toHaveLength(1)
  })

  it("is an accessible image with an axis from 0 to 100%, a title per bar, the reserved cases apart", () => {
    expect(svg).toMatch(/^<svg [^>]*role="img" aria-label="Pass rate per case and variant/)
    for (const tick of ["0%", "25%", "50%", "75%", "100%"]) expect(svg).toContain(`>${tick}</text>`)
    expect(svg).toContain(
      "<title>salmorejo list — before: 7/10 passed = 70%, 95% interval 39.7%–89.2%; threshold pass rate ≥ 60%: met; 3 failing trials (the link opens the first one&#39;s trace)</title>"
    )
    expect(svg).toContain("held out — before: 3/10 passed = 30%")
    const reservedAt = svg.indexOf("Reserved (held-out) cases")
    expect(reservedAt).toBeGreaterThan(svg.indexOf("salmorejo list — fixed"))
    expect(svg.indexOf("held out — before")).toBeGreaterThan(reservedAt)
    expect(svg).toContain("✗ not met 30%")
  })

  it("draws the differences in points around a zero line, with the verdict in words", () => {
    const d = TrialsChart.differences(r.comparisons)
    const span = TrialsChart.differenceSpan(r.comparisons)
    expect(span).toBe(0.5)
    const zero = elements(d, "line", 'class="zero"')[0]
    expect(Number(zero?.x1)).toBe(axisX + axisWidth / 2)
    const dots = elements(d, "circle")
    // All cases first, then each case.
    expect(dots.map((c) => (Number(c.cx) - (axisX + axisWidth / 2)) / (axisWidth / 2))).toStrictEqual([0.2, 0.4])
    const whiskers = elements(d, "line", 'class="whisker"')
    expect(Number(whiskers[1]?.x1)).toBeCloseTo(TrialsChart.differenceX(-0.12, span), 1)
    expect(d).toContain("+20 pts: within noise")
    expect(d).toContain("+10 pts: within noise")
    expect(d).toMatch(/role="img" aria-label="Difference in pass rate, fixed − before, in points/)
  })

  it("draws the comparison chart only for a report with comparisons", () => {
    const one = Html.fromPage({ title: "t", files: [read(text([caseLine()]))] })
    expect(one).toContain('class="trials-chart rates"')
    expect(one).not.toContain('class="trials-chart differences"')
    const two = Html.fromPage({ title: "t", files: [r] })
    expect(two).toContain('class="trials-chart differences"')
  })

  it("puts every number in the table: passes/n, rate, interval, pass^k shortened, tokens, time, failing trials", () => {
    const t = TrialsChart.table(r)
    expect(t).toContain("<td>7/10</td><td>70%</td><td>39.7%–89.2%</td>")
    expect(t).toContain("1: 70% · 2: 46.7% · 3: 29.2% · … · 10: 0%")
    expect(t).toContain("<td>1500</td><td>no price</td><td>4.3 s</td>")
    expect(t).toContain(
      '<a class="trace-link" href="#f2">trace</a> <code>runs/harness-trials/traces/salmorejo.before.2.jsonl</code>'
    )
    expect(t).toContain("trace <code>runs/harness-trials/traces/salmorejo.before.5.jsonl</code> (not loaded)")
    expect(t).toContain("scenario <code>captured/salmorejo.before.2.json</code>")
    expect(t).toContain("not captured: the trace has no model reply")
    expect(TrialsChart.passHatKWords([1, 0.5])).toBe("1: 100% · 2: 50%")
  })

  it("escapes hostile names everywhere and links nothing but the page's own anchors", () => {
    const hostile = `<script>alert("x")</script>' onload="x`
    const body = text([
      caseLine({
        name: hostile,
        file: `${hostile}.json`,
        variant: hostile,
        failing: [
          {
            index: 0,
            stop: hostile,
            failures: [{ kind: hostile, message: hostile }],
            trace: `traces/${hostile}.jsonl`,
            scenario: hostile
          },
          { index: 1, stop: null, failures: [], trace: "javascript:alert(1)" }
        ]
      }),
      comparisonLine({ name: hostile, a: hostile, b: hostile, verdict: hostile }),
      summaryLine({ model: hostile })
    ])
    const name = `${hostile}/report.jsonl`
    const linked = Input.linked([{ name, text: body }])
    const html = Html.fromPage(Input.page([{ name, text: body }, ...linked.map((n) => ({ name: n, text: trace(1) }))]))
    const start = html.indexOf('<section class="view trials')
    const section = html.slice(start, html.indexOf("</section>\n", start))
    expect(section).not.toContain("<script")
    expect(section).not.toMatch(/[^&]\bonload="/)
    expect(section).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&quot;x")
    const hrefs = [...section.matchAll(/href="([^"]*)"/g)].map((m) => m[1])
    expect(hrefs.length).toBeGreaterThan(0)
    for (const href of hrefs) expect(href).toMatch(/^#f\d+$/)
  })

  it("draws a 0% and a 100% bar inside the axis, and an empty report as a note", () => {
    const edge = read(
      text([
        caseLine({ passes: 0, rate: { passes: 0, n: 10, rate: 0, low: 0, high: 0.2775 }, met: false }),
        caseLine({
          variant: "fixed",
          passes: 10,
          rate: { passes: 10, n: 10, rate: 1, low: 0.7225, high: 1 },
          failing: []
        })
      ])
    )
    const bars = elements(TrialsChart.rates(edge), "rect", 'class="bar ')
    expect(bars.map((b) => Number(b.width))).toStrictEqual([0, axisWidth])
    expect(TrialsChart.section(read(""))).toContain("No case could be read.")
  })
})
