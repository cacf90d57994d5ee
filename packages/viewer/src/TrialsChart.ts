/**
 * A trials report drawn as HTML with inline SVG, made in Node (the page needs no script to show
 * it): a chart of pass rates (a row per case, a bar per variant, a whisker for the interval, a
 * mark for the threshold, reserved cases apart, an axis from 0 to 100%), a chart of the
 * differences between two variants (points, with their interval around a zero line, and the
 * verdict in words), and a table of every number. Every bar is a link to the trace of a failing
 * trial of its case. Every string is escaped; only the page's own anchors (`#f3`) are linked.
 *
 * @since 0.1.0
 */
import type * as Model from "./Model.ts"

/**
 * Text (or an attribute value) as HTML and SVG read it: `&`, `<`, `>`, `"` and `'` escaped.
 *
 * @since 0.1.0
 */
export const escapeHtml = (text: string): string =>
  text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;")

/**
 * The geometry of the charts, in SVG user units: where the axis starts (`axisX`), how wide it
 * is (`axisWidth`), the whole width, the height of a row and of a bar.
 *
 * @since 0.1.0
 */
export const layout = { axisX: 260, axisWidth: 400, width: 800, row: 20, bar: 12, top: 28 } as const

/** A coordinate, to the hundredth. */
const at = (v: number): string => String(Math.round(v * 100) / 100)

/**
 * Where a pass rate (in `[0, 1]`) is on the rate chart's axis.
 *
 * @since 0.1.0
 */
export const rateX = (rate: number): number => layout.axisX + Math.min(1, Math.max(0, rate)) * layout.axisWidth

/** A rate as a percentage: `70%`, `39.7%`. */
export const percent = (rate: number): string => `${Math.round(rate * 1000) / 10}%`

/** A difference in points: `+5 pts`, `−12.5 pts`. */
const points = (d: number): string => {
  const v = Math.round(d * 1000) / 10
  return `${v > 0 ? "+" : v < 0 ? "−" : "±"}${Math.abs(v)} pts`
}

/** A text cut to `max` characters (the full text is in the bar's title). */
const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** The cases of a report grouped by case (file and name), in order met; reserved groups last. */
const groups = (cases: ReadonlyArray<Model.TrialsCase>) => {
  const map = new Map<string, Array<Model.TrialsCase>>()
  for (const c of cases) {
    const key = `${c.file}\u0000${c.name}`
    const list = map.get(key) ?? []
    list.push(c)
    map.set(key, list)
  }
  const all = [...map.values()]
  return {
    held: all.filter((g) => !g.some((c) => c.reserved)),
    reserved: all.filter((g) => g.some((c) => c.reserved))
  }
}

/** The threshold of a case in words: `≥ 80%, lower bound ≥ 50%`, or `none`. */
const thresholdWords = (c: Model.TrialsCase): string => {
  const parts = [
    c.minPassRate === null ? null : `pass rate ≥ ${percent(c.minPassRate)}`,
    c.minLowerBound === null ? null : `lower bound ≥ ${percent(c.minLowerBound)}`
  ].filter((p) => p !== null)
  return parts.length === 0 ? "none" : parts.join(", ")
}

/** The title of a bar: every number of it in words. */
const barTitle = (c: Model.TrialsCase): string =>
  `${c.name} — ${c.variant}: ${c.passes}/${c.trials} passed = ${percent(c.rate)}, ` +
  `${percent(c.confidence)} interval ${percent(c.low)}–${percent(c.high)}; threshold ${thresholdWords(c)}: ` +
  `${c.met ? "met" : "not met"}; ${c.failing.length} failing trial${c.failing.length === 1 ? "" : "s"}` +
  (c.failing.some((f) => f.trace !== null) ? " (the link opens the first one's trace)" : "")

/** The first failing trial's in-page trace link, or `null`. */
const firstTrace = (c: Model.TrialsCase): string | null => c.failing.find((f) => f.trace !== null)?.trace ?? null

/** An axis of ticks with labels and grid lines from `y0` to `y1`. */
const axis = (ticks: ReadonlyArray<readonly [number, string]>, y0: number, y1: number): string =>
  [
    `<g class="axis" aria-hidden="true">`,
    ...ticks.map(
      ([x, label]) =>
        `<line class="grid" x1="${at(x)}" x2="${at(x)}" y1="${at(y0)}" y2="${at(y1)}" stroke="#8c959f" stroke-width="0.5"></line>` +
        `<text x="${at(x)}" y="${at(y0 - 6)}" text-anchor="middle" font-size="11">${escapeHtml(label)}</text>`
    ),
    "</g>"
  ].join("")

/** One variant's row of the rate chart, at `y` (the row's top). */
const rateRow = (c: Model.TrialsCase, y: number): string => {
  const mid = y + layout.row / 2
  const top = mid - layout.bar / 2
  const width = rateX(c.rate) - layout.axisX
  const status = c.met ? "met" : "not-met"
  const link = firstTrace(c)
  const parts = [
    `<title>${escapeHtml(barTitle(c))}</title>`,
    `<rect class="bar ${status}" x="${at(layout.axisX)}" y="${at(top)}" width="${at(width)}" height="${layout.bar}" fill="${c.met ? "#1a7f37" : "#cf222e"}" data-rate="${c.rate}"></rect>`,
    // A full-width backdrop so a 0% bar is still something to point at and click.
    `<rect class="bar-track" x="${at(layout.axisX)}" y="${at(top)}" width="${layout.axisWidth}" height="${layout.bar}" fill="transparent" stroke="#8c959f" stroke-width="0.5"></rect>`,
    `<line class="whisker" x1="${at(rateX(c.low))}" x2="${at(rateX(c.high))}" y1="${at(mid)}" y2="${at(mid)}" stroke="currentColor" stroke-width="1.5"></line>`,
    `<line class="whisker-cap" x1="${at(rateX(c.low))}" x2="${at(rateX(c.low))}" y1="${at(top + 2)}" y2="${at(top + layout.bar - 2)}" stroke="currentColor" stroke-width="1.5"></line>`,
    `<line class="whisker-cap" x1="${at(rateX(c.high))}" x2="${at(rateX(c.high))}" y1="${at(top + 2)}" y2="${at(top + layout.bar - 2)}" stroke="currentColor" stroke-width="1.5"></line>`,
    c.minPassRate === null
      ? ""
      : `<line class="threshold min-pass-rate" x1="${at(rateX(c.minPassRate))}" x2="${at(rateX(c.minPassRate))}" y1="${at(top - 3)}" y2="${at(top + layout.bar + 3)}" stroke="#9a6700" stroke-width="2.5"></line>`,
    c.minLowerBound === null
      ? ""
      : `<path class="threshold min-lower-bound" d="M${at(rateX(c.minLowerBound))} ${at(top + layout.bar + 1)} l-4 5 h8 z" fill="#9a6700"></path>`
  ]
  return [
    `<text class="variant" x="${at(layout.axisX - 8)}" y="${at(mid + 4)}" text-anchor="end" font-size="12">${escapeHtml(cut(c.variant, 28))}</text>`,
    link === null
      ? `<g class="bar-group" aria-label="${escapeHtml(barTitle(c))}">${parts.join("")}</g>`
      : `<a class="bar-link" href="${escapeHtml(link)}" aria-label="${escapeHtml(barTitle(c))}">${parts.join("")}</a>`,
    `<text class="mark ${status}" x="${at(layout.axisX + layout.axisWidth + 10)}" y="${at(mid + 4)}" font-size="12">${c.met ? "✓ met" : "✗ not met"} ${escapeHtml(percent(c.rate))}</text>`
  ].join("")
}

/**
 * The pass-rate chart as SVG: one row per case (reserved cases under a heading of their own),
 * a bar per variant as long as its pass rate, a whisker from the interval's low to its high, a
 * line at the minimum pass rate and a triangle at the minimum lower bound, met or not in words
 * and colour; an axis from 0 to 100%. Each bar links to its first failing trial's trace.
 *
 * @since 0.1.0
 */
export const rates = (trials: Model.Trials): string => {
  const { held, reserved } = groups(trials.cases)
  const rows: Array<string> = []
  let y = layout.top
  const group = (list: ReadonlyArray<ReadonlyArray<Model.TrialsCase>>) => {
    for (const cases of list) {
      const first = cases[0]
      if (first === undefined) continue
      rows.push(
        `<text class="case" x="4" y="${at(y + 14)}" font-size="12" font-weight="bold">${escapeHtml(cut(first.name, 40))}<title>${escapeHtml(`${first.name} (${first.file})`)}</title></text>`
      )
      y += layout.row
      for (const c of cases) {
        rows.push(rateRow(c, y))
        y += layout.row
      }
    }
  }
  group(held)
  if (reserved.length > 0) {
    y += 6
    rows.push(
      `<line class="reserved-rule" x1="0" x2="${layout.width}" y1="${at(y)}" y2="${at(y)}" stroke="#8c959f"></line>`,
      `<text class="reserved-heading" x="4" y="${at(y + 15)}" font-size="12" font-style="italic">Reserved (held-out) cases</text>`
    )
    y += layout.row
    group(reserved)
  }
  const height = y + 8
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => [rateX(t), percent(t)] as const)
  const label = `Pass rate per case and variant, with ${percent(trials.cases[0]?.confidence ?? 0.95)} intervals: ${trials.cases.length} bars, ${trials.cases.filter((c) => !c.met).length} not met`
  return [
    `<svg class="trials-chart rates" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${layout.width} ${at(height)}" width="${layout.width}" height="${at(height)}">`,
    `<title>${escapeHtml(label)}</title>`,
    axis(ticks, layout.top, height - 4),
    ...rows,
    "</svg>"
  ].join("")
}

/**
 * The half-width of the difference chart's axis: the smallest of 10, 25, 50 and 100 points that
 * holds every difference and interval bound.
 *
 * @since 0.1.0
 */
export const differenceSpan = (comparisons: ReadonlyArray<Model.TrialsComparison>): number => {
  const most = Math.max(0, ...comparisons.flatMap((c) => [Math.abs(c.low), Math.abs(c.high), Math.abs(c.difference)]))
  return [0.1, 0.25, 0.5, 1].find((s) => most <= s) ?? 1
}

/**
 * Where a difference (in `[−span, span]`) is on the difference chart's axis (zero in the middle).
 *
 * @since 0.1.0
 */
export const differenceX = (difference: number, span: number): number =>
  layout.axisX + layout.axisWidth / 2 + (Math.min(span, Math.max(-span, difference)) / span) * (layout.axisWidth / 2)

/** The title of a comparison: every number in words. */
const comparisonTitle = (c: Model.TrialsComparison): string =>
  `${c.name}: ${c.b} − ${c.a} = ${points(c.difference)} (${percent(c.bRate)} vs ${percent(c.aRate)} on ${c.n} paired trials), ` +
  `${percent(c.confidence)} interval ${points(c.low)} to ${points(c.high)}, p = ${Math.round(c.pValue * 1000) / 1000}: ${c.verdict}`

/**
 * The difference chart as SVG: a row per comparison (all cases first), a dot at `b − a` in
 * points with a whisker for its paired interval, a zero line, and the verdict in words.
 *
 * @since 0.1.0
 */
export const differences = (comparisons: ReadonlyArray<Model.TrialsComparison>): string => {
  const span = differenceSpan(comparisons)
  const ordered = [...comparisons.filter((c) => c.file === null), ...comparisons.filter((c) => c.file !== null)]
  const rows: Array<string> = []
  let y = layout.top
  for (const c of ordered) {
    const mid = y + layout.row / 2
    const verdict = c.verdict === "better" ? "better" : c.verdict === "worse" ? "worse" : "noise"
    const title = comparisonTitle(c)
    rows.push(
      `<g class="comparison ${verdict}" aria-label="${escapeHtml(title)}"><title>${escapeHtml(title)}</title>`,
      `<text class="case" x="${at(layout.axisX - 8)}" y="${at(mid + 4)}" text-anchor="end" font-size="12"${c.file === null ? ' font-weight="bold"' : ""}>${escapeHtml(cut(c.name, 36))}</text>`,
      `<line class="whisker" x1="${at(differenceX(c.low, span))}" x2="${at(differenceX(c.high, span))}" y1="${at(mid)}" y2="${at(mid)}" stroke="currentColor" stroke-width="1.5"></line>`,
      `<circle class="difference" cx="${at(differenceX(c.difference, span))}" cy="${at(mid)}" r="4" fill="${verdict === "better" ? "#1a7f37" : verdict === "worse" ? "#cf222e" : "#57606a"}"></circle>`,
      `<text class="verdict" x="${at(layout.axisX + layout.axisWidth + 10)}" y="${at(mid + 4)}" font-size="12">${escapeHtml(`${points(c.difference)}: ${c.verdict}`)}</text>`,
      "</g>"
    )
    y += layout.row
  }
  const height = y + 8
  const ticks = [-1, -0.5, 0, 0.5, 1].map((t) => [differenceX(t * span, span), points(t * span)] as const)
  const first = ordered[0]
  const label =
    first === undefined
      ? "No comparison"
      : `Difference in pass rate, ${first.b} − ${first.a}, in points, with paired intervals: ${ordered.map((c) => `${c.name} ${c.verdict}`).join("; ")}`
  return [
    `<svg class="trials-chart differences" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${layout.width} ${at(height)}" width="${layout.width}" height="${at(height)}">`,
    `<title>${escapeHtml(label)}</title>`,
    axis(ticks, layout.top, height - 4),
    `<line class="zero" x1="${at(differenceX(0, span))}" x2="${at(differenceX(0, span))}" y1="${at(layout.top)}" y2="${at(height - 4)}" stroke="currentColor" stroke-width="1.5"></line>`,
    ...rows,
    "</svg>"
  ].join("")
}

/** pass^k for k = 1..n, shortened: every k up to 5, else k = 1, 2, 3, …, n. */
export const passHatKWords = (p: ReadonlyArray<number>): string => {
  const shown = p.map((v, i) => `${i + 1}: ${percent(v)}`)
  return shown.length <= 5 ? shown.join(" · ") : [...shown.slice(0, 3), "…", shown[shown.length - 1]].join(" · ")
}

/** A duration in words: `850 ms`, `12.3 s`. */
const duration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`)

/** The failing trials of a case: each with its trace (a link when the page holds it) and its captured scenario. */
const failingList = (c: Model.TrialsCase): string => {
  if (c.failing.length === 0) return "none"
  const items = c.failing.map((f) => {
    const trace =
      f.tracePath === null
        ? "no trace"
        : f.trace === null
          ? `trace <code>${escapeHtml(f.tracePath)}</code> (not loaded)`
          : `<a class="trace-link" href="${escapeHtml(f.trace)}">trace</a> <code>${escapeHtml(f.tracePath ?? "")}</code>`
    const scenario =
      f.scenario !== null
        ? ` · scenario <code>${escapeHtml(f.scenario)}</code>`
        : f.captureError !== null
          ? ` · not captured: ${escapeHtml(f.captureError)}`
          : ""
    const failures =
      f.failures.length === 0 ? "" : `<ul>${f.failures.map((x) => `<li>${escapeHtml(x)}</li>`).join("")}</ul>`
    return `<li>trial ${f.index}${f.stop === null ? "" : ` (${escapeHtml(f.stop)})`}: ${trace}${scenario}${failures}</li>`
  })
  return `<details><summary>${c.failing.length} failing</summary><ul class="failing">${items.join("")}</ul></details>`
}

/**
 * Every number of the report in a table: passes/n, rate, interval, threshold, met, pass^k,
 * tokens, cost (`no price` for an unpriced run), time and the failing trials.
 *
 * @since 0.1.0
 */
export const table = (trials: Model.Trials): string => {
  const { held, reserved } = groups(trials.cases)
  const row = (c: Model.TrialsCase) =>
    `<tr class="${c.met ? "met" : "not-met"}"><th scope="row">${escapeHtml(c.name)}<div class="file">${escapeHtml(c.file)}</div></th>` +
    `<td>${escapeHtml(c.variant)}</td><td>${c.passes}/${c.trials}</td><td>${percent(c.rate)}</td>` +
    `<td>${percent(c.low)}–${percent(c.high)}</td><td>${escapeHtml(thresholdWords(c))}</td>` +
    `<td>${c.met ? "✓ met" : "✗ not met"}</td><td>${escapeHtml(passHatKWords(c.passHatK))}</td>` +
    `<td>${c.tokens === null ? "—" : c.tokens}</td><td>${c.cost === null ? "no price" : `$${c.cost.toFixed(4)}`}</td>` +
    `<td>${duration(c.durationMs)}</td><td>${failingList(c)}</td></tr>`
  const body = (list: ReadonlyArray<ReadonlyArray<Model.TrialsCase>>) => list.flat().map(row).join("")
  const head =
    '<thead><tr><th scope="col">case</th><th scope="col">variant</th><th scope="col">passes/n</th><th scope="col">rate</th>' +
    '<th scope="col">interval</th><th scope="col">threshold</th><th scope="col">met</th><th scope="col">pass^k (k: chance)</th>' +
    '<th scope="col">tokens</th><th scope="col">cost</th><th scope="col">time</th><th scope="col">failing trials</th></tr></thead>'
  const tables = [
    `<table class="trials-table"><caption>Every case</caption>${head}<tbody>${body(held)}</tbody></table>`
  ]
  if (reserved.length > 0)
    tables.push(
      `<table class="trials-table reserved"><caption>Reserved (held-out) cases</caption>${head}<tbody>${body(reserved)}</tbody></table>`
    )
  if (trials.comparisons.length > 0) {
    const rows = trials.comparisons.map(
      (c) =>
        `<tr><th scope="row">${escapeHtml(c.name)}</th><td>${escapeHtml(`${c.b} − ${c.a}`)}</td><td>${c.n}</td><td>${percent(c.aRate)}</td><td>${percent(c.bRate)}</td>` +
        `<td>${escapeHtml(points(c.difference))}</td><td>${escapeHtml(`${points(c.low)} to ${points(c.high)}`)}</td><td>${Math.round(c.pValue * 1000) / 1000}</td><td>${escapeHtml(c.verdict)}</td></tr>`
    )
    tables.push(
      `<table class="trials-table comparisons"><caption>Comparisons</caption><thead><tr><th scope="col">case</th><th scope="col">difference of</th><th scope="col">n</th><th scope="col">a rate</th><th scope="col">b rate</th><th scope="col">b − a</th><th scope="col">interval</th><th scope="col">p</th><th scope="col">verdict</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
    )
  }
  return tables.join("")
}

/** The problems of a report as a list, or nothing. */
const problemList = (problems: ReadonlyArray<Model.Problem>): string =>
  problems.length === 0
    ? ""
    : `<section class="problems"><h3>⚠ ${problems.length} problem${problems.length === 1 ? "" : "s"} reading this file (the rest is shown)</h3><ul>${problems
        .slice(0, 200)
        .map(
          (p) =>
            `<li><span class="where">${p.line === null ? "" : `line ${p.line}`}${p.path === "(line)" ? "" : `, at ${escapeHtml(p.path)}`}</span>: ${escapeHtml(p.message)}</li>`
        )
        .join("")}</ul></section>`

/**
 * A trials report's whole section of the page: heading, problems, the charts and the table.
 *
 * @since 0.1.0
 */
export const section = (trials: Model.Trials): string => {
  const id = escapeHtml(trials.id)
  return [
    `<section class="view trials static-view" id="${id}" aria-labelledby="${id}-title">`,
    `<h2 id="${id}-title"><span class="kind">trials report</span> ${escapeHtml(trials.name)}</h2>`,
    trials.model === null ? "" : `<p class="note">model ${escapeHtml(trials.model)}</p>`,
    problemList(trials.problems),
    trials.cases.length === 0 ? '<p class="none">No case could be read.</p>' : `<figure>${rates(trials)}</figure>`,
    trials.comparisons.length === 0 ? "" : `<figure>${differences(trials.comparisons)}</figure>`,
    table(trials),
    "</section>"
  ].join("\n")
}
