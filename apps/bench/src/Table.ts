/**
 * The results table: one row per measurement, rendered as Markdown with the median, the ratio to
 * A, the target and whether it is met.
 */

export interface Row {
  /** The issue's row number and letter, e.g. `1a`. */
  readonly id: string
  readonly label: string
  /** The measured value as shown (`123 ns`, `5.2 s`, `×1.04`). */
  readonly value: string
  /** The ratio to A, when the value is a cost per call. */
  readonly ratio?: number | undefined
  readonly target?: string | undefined
  /** `undefined`: a reference row, nothing to meet (or a target not measured here: `notHere`). */
  readonly met?: boolean | undefined
  /** Why the row's target cannot be measured on this machine (it is then not counted). */
  readonly notHere?: string | undefined
}

export const ns = (value: number): string =>
  value >= 100_000 ? `${Math.round(value).toLocaleString("en-US")} ns` : `${value.toFixed(value >= 100 ? 0 : 1)} ns`

/** A duration in the unit that reads best: ns, µs or ms. */
export const duration = (nanos: number): string =>
  nanos < 10_000
    ? ns(nanos)
    : nanos < 10_000_000
      ? `${(nanos / 1000).toFixed(nanos < 100_000 ? 1 : 0)} µs`
      : `${(nanos / 1e6).toFixed(1)} ms`

export const times = (value: number): string =>
  value >= 100 ? `${Math.round(value).toLocaleString("en-US")}` : value.toFixed(value >= 10 ? 1 : 2)

/** A row for a cost per call, compared to A and to a "at most n × A" target. */
export const perCall = (id: string, label: string, median: number, a: number, atMost?: number | undefined): Row => ({
  id,
  label,
  value: ns(median),
  ratio: median / a,
  target: atMost === undefined ? undefined : `≤ ${atMost} × A`,
  met: atMost === undefined ? undefined : median / a <= atMost
})

const cell = (text: string): string => text.replaceAll("|", "\\|")

export const markdown = (rows: ReadonlyArray<Row>): string => {
  const lines = ["| # | measurement | median | × A | target | |", "|---|---|---:|---:|---|---|"]
  for (const row of rows) {
    const verdict =
      row.notHere !== undefined
        ? `not measured here: ${row.notHere}`
        : row.met === undefined
          ? ""
          : row.met
            ? "met"
            : "**not met**"
    lines.push(
      `| ${row.id} | ${cell(row.label)} | ${row.value} | ${row.ratio === undefined ? "" : times(row.ratio)} | ${cell(row.target ?? "")} | ${verdict} |`
    )
  }
  return lines.join("\n")
}

/**
 * The run's last line: how many of the targets measured on this machine were met, and which
 * targets were not measured here, and why.
 */
export const summary = (rows: ReadonlyArray<Row>): string => {
  const measured = rows.filter((row) => row.met !== undefined && row.notHere === undefined)
  const met = measured.filter((row) => row.met === true).length
  const away = rows.filter((row) => row.notHere !== undefined)
  const notHere =
    away.length === 0
      ? ""
      : `; not measured on this machine: ${away.map((row) => `row ${row.id} (${row.notHere})`).join(", ")}`
  return `${met} of ${measured.length} targets measured on this machine met${notHere}.`
}
