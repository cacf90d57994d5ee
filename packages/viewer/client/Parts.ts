/**
 * Pieces every view uses: the view contract, status badges (sign and word, coloured by class),
 * the list of problems, events drawn as they are, the sticky toolbar.
 */
import type { Generic, Json, Problem } from "../src/Model.ts"
import { type Child, h, json, marked } from "./Dom.ts"
import type { Target } from "./Hash.ts"
import type { Words } from "./Words.ts"

/** A view of one file. */
export interface View {
  readonly element: HTMLElement
  /** The view is shown, at a place when a link names one. */
  readonly show: (place: Target["place"]) => void
  /** The view is hidden. */
  readonly hide: () => void
  /** Moves the focus to the next (1) or previous (-1) item. */
  readonly step: (delta: 1 | -1) => void
  /** Focuses the search box, if the view has one. */
  readonly search: () => void
}

/** A status in a sign, a word and a colour (the class), with its meaning as a tooltip. */
export const badge = (kind: string, words: Words): HTMLElement =>
  h(
    "span",
    { class: `badge status-${kind}`, title: words.meaning },
    h("span", { class: "sign", "aria-hidden": "true" }, words.sign),
    " ",
    words.word
  )

/** Where a problem is: `line 7, at reply[0].input` (the file first when several are read). */
export const where = (problem: Problem): string => {
  const parts = [
    problem.file,
    problem.line === null ? null : `line ${problem.line}`,
    problem.path === "(line)" ? null : `at ${problem.path}`
  ]
  return parts.filter((p) => p !== null && p !== undefined).join(", ")
}

/** The problems found reading a file, or nothing. */
export const problems = (list: ReadonlyArray<Problem>, idPrefix: string): Child => {
  if (list.length === 0) return null
  const heading = `${idPrefix}-problems`
  return h(
    "section",
    { class: "problems", "aria-labelledby": heading },
    h(
      "h3",
      { id: heading },
      h("span", { class: "sign", "aria-hidden": "true" }, "⚠"),
      ` ${list.length === 1 ? "1 problem" : `${list.length} problems`} reading this file (the rest is shown)`
    ),
    h(
      "ul",
      null,
      list.slice(0, 200).map((p) => h("li", null, h("span", { class: "where" }, where(p)), ": ", p.message))
    ),
    list.length > 200 ? h("p", null, `… and ${list.length - 200} more`) : null
  )
}

/** A value in a definition list: text for scalars, indented JSON for the rest. */
const value = (v: Json, query: string): Child =>
  typeof v === "object" && v !== null ? h("pre", { class: "json" }, marked(json(v), query)) : marked(String(v), query)

/** An event drawn as it is: its type, where it is, each field. */
export const generic = (event: Generic, query: string): HTMLElement =>
  h(
    "div",
    { class: `generic${event.problem === undefined ? "" : " unreadable"}` },
    h(
      "div",
      { class: "generic-head" },
      event.problem === undefined
        ? h("span", { class: "badge status-other" }, "event")
        : h(
            "span",
            { class: "badge status-failed" },
            h("span", { class: "sign", "aria-hidden": "true" }, "⚠"),
            " unreadable"
          ),
      " ",
      h("code", null, marked(event.type, query)),
      " ",
      h("span", { class: "where" }, event.where)
    ),
    event.problem === undefined ? null : h("p", { class: "problem" }, event.problem),
    h(
      "dl",
      { class: "fields" },
      Object.entries(event.fields)
        .filter(([key]) => key !== "type")
        .map(([key, v]) => [h("dt", null, key), h("dd", null, value(v, query))])
    )
  )

/** A labelled control for a toolbar. */
export const field = (label: string, control: HTMLElement): HTMLElement =>
  h("label", { class: "field" }, h("span", null, label), control)

/** `<dt>` and `<dd>` pairs. */
export const pairs = (entries: ReadonlyArray<readonly [string, Child]>): HTMLElement =>
  h(
    "dl",
    { class: "summary" },
    entries.map(([term, detail]) => h("div", null, h("dt", null, term), h("dd", null, detail)))
  )

/** The height the sticky toolbar of a section covers. */
export const covered = (toolbar: HTMLElement | null): number =>
  toolbar === null ? 0 : toolbar.getBoundingClientRect().height + 8

/** Focuses an element without scrolling (the list already placed it). */
export const focus = (element: HTMLElement | undefined): void => {
  element?.focus({ preventScroll: true })
}
