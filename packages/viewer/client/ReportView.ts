/**
 * Test reports side by side: a column per harness variant and report file with its totals, a
 * row per scenario (and per case of a `response-cases` scenario) with each column's verdict in
 * a word and a colour, the failures under it, a link to the trace; the reserved (held-out) rows
 * in a table of their own. Long tables are virtual.
 */
import type { Cell, Report, Row } from "../src/Model.ts"
import { h } from "./Dom.ts"
import * as Href from "./Href.ts"
import * as Filter from "./Filter.ts"
import { badge, covered, field, focus, problems, type View } from "./Parts.ts"
import { VirtualList } from "./VirtualList.ts"
import * as Words from "./Words.ts"

const cell = (c: Cell | null): HTMLElement => {
  if (c === null) return h("td", { class: "cell-none" }, h("span", { class: "badge status-other" }, "— not run"))
  const href = c.trace === null ? null : Href.safe(c.trace)
  return h(
    "td",
    { class: `cell-${c.verdict}` },
    badge(c.verdict, Words.verdict[c.verdict]),
    c.summary === "" ? null : h("div", { class: "cell-summary" }, c.summary),
    c.failures.length === 0
      ? null
      : h(
          "details",
          null,
          h("summary", null, Words.count(c.failures.length, "failure")),
          c.failures.map((f) => h("pre", { class: "observation error" }, f))
        ),
    c.trace === null
      ? null
      : href === null
        ? h("span", { class: "note" }, `trace: ${c.trace}`)
        : h("a", { href, class: "trace-link" }, "trace")
  )
}

const table = (
  report: Report,
  rows: ReadonlyArray<Row>,
  caption: string,
  id: string,
  covers: () => number
): { readonly element: HTMLElement; readonly list: VirtualList; readonly body: HTMLElement } => {
  const columns = report.columns.length
  const body = h("tbody", null)
  const list = new VirtualList({
    parent: body,
    total: rows.length,
    render: (index) => {
      const row = rows[index] as Row
      const differs = columns > 1 && Filter.differs(row)
      return h(
        "tr",
        { tabindex: "-1", "data-index": index, class: differs ? "differs" : null },
        h(
          "th",
          { scope: "row" },
          row.case === null ? row.name : [h("span", { class: "case-of" }, `${row.name} › `), row.case],
          row.role === null ? null : h("span", { class: "role" }, ` ${row.role}`),
          differs ? h("span", { class: "differs-mark" }, " · verdicts differ") : null
        ),
        h("td", { class: "file" }, row.file, h("div", { class: "kind" }, row.kind)),
        row.cells.map(cell)
      )
    },
    spacer: () => h("tr", { class: "spacer" }, h("td", { colspan: columns + 2 })),
    estimate: 64,
    covered: covers
  })
  const element = h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "report", id },
      h("caption", null, caption),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", { scope: "col" }, "scenario"),
          h("th", { scope: "col" }, "file"),
          report.columns.map((c) => h("th", { scope: "col" }, c.label))
        )
      ),
      body
    )
  )
  return { element, list, body }
}

/** The report view. */
export const make = (report: Report): View => {
  let filter: Filter.RowFilter = { query: "", failingOnly: false, differingOnly: false }
  const search = h("input", { type: "search", placeholder: "scenario, file, case…" })
  const failing = h("input", { type: "checkbox" })
  const differing = h("input", { type: "checkbox" })
  const shownCount = h("span", { class: "count", role: "status", "aria-live": "polite" })
  const toolbar = h(
    "div",
    { class: "toolbar", role: "search", "aria-label": "Filter the report" },
    field("Search", search),
    h("label", { class: "field check" }, failing, h("span", null, "only failing")),
    report.columns.length > 1
      ? h("label", { class: "field check" }, differing, h("span", null, "only where the columns differ"))
      : null,
    shownCount
  )
  const covers = () => covered(toolbar)
  const main = table(report, report.rows, "Scenarios", `${report.id}-main`, covers)
  const reserved = table(
    report,
    report.reserved,
    "Reserved (held-out) scenarios and cases",
    `${report.id}-reserved`,
    covers
  )
  const apply = () => {
    const a = Filter.rows(report.rows, filter)
    const b = Filter.rows(report.reserved, filter)
    main.list.show(a)
    reserved.list.show(b)
    // The first match in view: back to the top of the table when the page was further down.
    const tableTop = main.element.getBoundingClientRect().top
    if (tableTop < 0 && !element.hidden) window.scrollBy(0, tableTop - covers())
    const total = report.rows.length + report.reserved.length
    shownCount.textContent =
      a.length + b.length === total
        ? Words.count(total, "row")
        : `showing ${a.length + b.length} of ${Words.count(total, "row")}`
  }
  let timer = 0
  search.addEventListener("input", () => {
    clearTimeout(timer)
    timer = window.setTimeout(() => {
      filter = { ...filter, query: search.value.trim().toLowerCase() }
      apply()
    }, 120)
  })
  failing.addEventListener("change", () => {
    filter = { ...filter, failingOnly: failing.checked }
    apply()
  })
  differing.addEventListener("change", () => {
    filter = { ...filter, differingOnly: differing.checked }
    apply()
  })

  const totals = h(
    "ul",
    { class: "totals" },
    report.columns.map((c) =>
      h(
        "li",
        null,
        h("strong", null, c.label),
        c.label === c.file ? null : h("span", { class: "meta" }, ` (${c.file})`),
        ": ",
        badge("pass", { ...Words.verdict.pass, word: `${c.passed} passed` }),
        " ",
        badge(c.failed > 0 ? "fail" : "other", { ...Words.verdict.fail, word: `${c.failed} failed` }),
        c.invalid > 0 ? [" ", badge("invalid", { ...Words.verdict.invalid, word: `${c.invalid} invalid` })] : null,
        c.reservedPassed + c.reservedFailed > 0
          ? ` · reserved: ${c.reservedPassed} passed, ${c.reservedFailed} failed`
          : null
      )
    )
  )

  const element = h(
    "section",
    { class: "view report", id: report.id, "aria-labelledby": `${report.id}-title`, hidden: true },
    h("h2", { id: `${report.id}-title` }, h("span", { class: "kind" }, "test report"), " ", report.name),
    problems(report.problems, report.id),
    totals,
    toolbar,
    main.element,
    report.reserved.length === 0
      ? h("p", { class: "none" }, "No reserved (held-out) scenarios or cases.")
      : reserved.element
  )
  apply()
  let current: { readonly list: VirtualList; readonly index: number } | undefined
  element.addEventListener("focusin", (event) => {
    const tr = (event.target as HTMLElement).closest("tr")
    if (tr === null || tr.dataset.index === undefined) return
    current = { list: main.body.contains(tr) ? main.list : reserved.list, index: Number(tr.dataset.index) }
  })
  return {
    element,
    show: () => {
      element.hidden = false
      main.list.start()
      reserved.list.start()
    },
    hide: () => {
      element.hidden = true
      main.list.stop()
      reserved.list.stop()
    },
    step: (delta) => {
      const list = current?.list ?? main.list
      const at = current === undefined ? -1 : list.positionOf(current.index)
      const next = at === -1 ? 0 : at + delta
      if (next < 0 || next >= list.length) return
      list.scrollTo(next)
      const index = list.item(next)
      if (index === undefined) return
      current = { list, index }
      focus(list.element(index))
    },
    search: () => search.focus()
  }
}
