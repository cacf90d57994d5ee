/**
 * Trials reports written by hand after the report contract (`trials.case`, `trials.comparison`,
 * `trials.summary` lines, trace paths relative to the report's folder), for the viewer's tests.
 */

/** A `trials.case` line with the given fields over a 7-of-10 case that met its threshold. */
export const caseLine = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: "trials.case",
  file: "cases/salmorejo.json",
  name: "salmorejo list",
  variant: "before",
  reserved: false,
  trials: 10,
  passes: 7,
  rate: { passes: 7, n: 10, rate: 0.7, low: 0.3968, high: 0.8922 },
  confidence: 0.95,
  passAtK: [0.7, 0.9333, 0.9917, 1, 1, 1, 1, 1, 1, 1],
  passHatK: [0.7, 0.4667, 0.2917, 0.1667, 0.0833, 0.0333, 0.0083, 0, 0, 0],
  threshold: { minPassRate: 0.6 },
  met: true,
  failing: [2, 5, 8].map((i) => ({
    index: i,
    stop: "max_turns",
    failures: [{ kind: "expect", message: "list.txt lacks garlic" }],
    trace: `traces/salmorejo.before.${i}.jsonl`,
    scenario: `captured/salmorejo.before.${i}.json`
  })),
  usage: { inputTokens: 1200, outputTokens: 300 },
  durationMs: 4321,
  resumed: 0,
  aNewerField: { kept: "ignored" },
  ...over
})

/** A `trials.comparison` line (`fixed − before`). */
export const comparisonLine = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: "trials.comparison",
  file: "cases/salmorejo.json",
  name: "salmorejo list",
  a: "before",
  b: "fixed",
  n: 10,
  both: 6,
  b10: 1,
  b01: 3,
  neither: 0,
  aRate: 0.7,
  bRate: 0.9,
  difference: 0.2,
  interval: { low: -0.12, high: 0.48 },
  confidence: 0.95,
  pValue: 0.625,
  verdict: "within noise",
  ...over
})

/** A `trials.summary` line. */
export const summaryLine = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: "trials.summary",
  model: "anthropic:claude-test",
  trialsPerCase: 10,
  variants: ["before", "fixed"],
  cases: 2,
  met: 1,
  notMet: 1,
  usage: {},
  durationMs: 9000,
  resumed: 0,
  ...over
})

/** Lines as JSON Lines text. */
export const text = (lines: ReadonlyArray<Record<string, unknown>>): string =>
  `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`

/** Two variants of one case (before 7/10 met, fixed 9/10 met), a reserved case that did not meet its threshold, comparisons, a summary. */
export const twoVariants = (): string =>
  text([
    caseLine(),
    caseLine({
      variant: "fixed",
      passes: 9,
      rate: { passes: 9, n: 10, rate: 0.9, low: 0.5958, high: 0.9821 },
      failing: [
        {
          index: 4,
          stop: "end_turn",
          failures: [{ kind: "expect", message: "no garlic" }],
          trace: "traces/salmorejo.fixed.4.jsonl",
          captureError: "the trace has no model reply"
        }
      ]
    }),
    caseLine({
      file: "cases/held.json",
      name: "held out",
      reserved: true,
      passes: 3,
      rate: { passes: 3, n: 10, rate: 0.3, low: 0.1078, high: 0.6032 },
      threshold: { minLowerBound: 0.5 },
      met: false,
      failing: [],
      usage: {}
    }),
    comparisonLine(),
    comparisonLine({ file: null, name: "all cases", difference: 0.1, interval: { low: -0.05, high: 0.25 } }),
    summaryLine()
  ])

/** A minimal conversation trace (what `harness run --trace` writes, much shortened). */
export const trace = (turns: number): string =>
  text([
    {
      type: "run.started",
      messages: [{ role: "user", content: "Add what salmorejo needs." }],
      max_turns: 10,
      tools: []
    },
    ...Array.from({ length: turns }, (_, i) => [
      { type: "model.requested", turn: i + 1, messages: 1 },
      { type: "model.replied", turn: i + 1, reply: [{ type: "text", text: `turn ${i + 1}` }] }
    ]).flat(),
    { type: "run.ended", stop: "end_turn", text: "done", turns }
  ])
