/**
 * A plan session: the goal, the budgets spent, the `SessionResult`, then every revision in a
 * virtual timeline: the replan that made it (the last error, where the cursor stood, the diff
 * drawn: removed steps in `<del>`, added in `<ins>`, revised with their argument changes), its
 * steps with their outcomes, and the plans the session refused.
 */
import type { ArgChange, DiffRow, Entry, Json, Plan, Step, StepRun } from "../src/Model.ts"
import { type Child, h, json } from "./Dom.ts"
import type { Target } from "./Hash.ts"
import { badge, covered, focus, generic, pairs, problems, type View } from "./Parts.ts"
import { VirtualList } from "./VirtualList.ts"
import * as Words from "./Words.ts"

const ordinal = (n: number): string => {
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return `${n}th`
  return `${n}${n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"}`
}

const stepText = (step: Step): string => `${step.id} ${step.tool} ${JSON.stringify(step.args)}`

const change = (c: ArgChange): HTMLElement =>
  h(
    "li",
    null,
    h("code", null, c.path),
    ": ",
    c.before === undefined ? null : h("del", null, JSON.stringify(c.before)),
    c.before !== undefined && c.after !== undefined ? " → " : null,
    c.after === undefined ? null : h("ins", null, JSON.stringify(c.after))
  )

const diffRow = (row: DiffRow): HTMLElement => {
  switch (row.mark) {
    case "removed":
      return h(
        "li",
        { class: "diff-removed" },
        h("span", { class: "mark" }, "removed "),
        h("del", null, stepText(row.step))
      )
    case "added":
      return h(
        "li",
        { class: "diff-added" },
        h("span", { class: "mark" }, "added "),
        h("ins", null, stepText(row.step))
      )
    case "revised":
      return h(
        "li",
        { class: "diff-revised" },
        h("span", { class: "mark" }, "revised "),
        h("del", null, stepText(row.before)),
        " → ",
        h("ins", null, stepText(row.step)),
        row.changes.length === 0
          ? null
          : h("ul", { class: "arg-changes", "aria-label": "argument changes" }, row.changes.map(change))
      )
    case "kept":
      return h("li", { class: "diff-kept" }, h("span", { class: "mark" }, "kept "), stepText(row.step))
  }
}

/** Args on one line when short, indented when not. */
const args = (value: Json): HTMLElement => {
  const line = JSON.stringify(value)
  return line.length <= 60 ? h("code", null, line) : h("pre", { class: "json" }, json(value))
}

/** A table of steps with their outcomes. */
export const stepTable = (steps: ReadonlyArray<StepRun>, caption: string): HTMLElement =>
  h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "steps" },
      h("caption", null, caption),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ["id", "tool", "args", "expected outcome", "outcome"].map((c) => h("th", { scope: "col" }, c))
        )
      ),
      h(
        "tbody",
        null,
        steps.map((s) =>
          h(
            "tr",
            { class: `status-row-${s.status}` },
            h(
              "th",
              { scope: "row" },
              String(s.id),
              s.group === null ? null : h("span", { class: "group" }, ` group ${s.group}`)
            ),
            h("td", null, h("code", null, s.tool)),
            h("td", null, args(s.args)),
            h("td", null, s.expected),
            h(
              "td",
              null,
              badge(s.status, Words.step[s.status]),
              s.result === null ? null : h("pre", { class: "observation" }, s.result),
              s.error === null ? null : h("pre", { class: "observation error" }, s.error)
            )
          )
        )
      )
    )
  )

/** The plan session view. */
export const make = (file: Plan, link: (place: Target["place"]) => string): View => {
  const entries = file.entries
  let current = -1

  const entryItem = (index: number, position: number, shown: number): HTMLElement => {
    const entry = entries[index] as Entry
    const common = { tabindex: "-1", "aria-posinset": position + 1, "aria-setsize": shown, "data-index": index }
    switch (entry.type) {
      case "revision": {
        const heading = `${file.id}-revision-${entry.revision}-h`
        const replan = entry.replan
        return h(
          "article",
          { ...common, class: "revision", id: `${file.id}-revision-${entry.revision}`, "aria-labelledby": heading },
          h(
            "header",
            { class: "turn-head" },
            h(
              "h3",
              { id: heading },
              h("a", { href: link({ kind: "revision", n: entry.revision }) }, `Revision ${entry.revision}`),
              replan === null ? " (the first plan)" : " (a replan)"
            ),
            h("span", { class: "meta" }, `line ${entry.line}`)
          ),
          replan === null
            ? null
            : h(
                "div",
                { class: "replan" },
                pairs([
                  ["Last error", h("pre", { class: "observation error" }, replan.lastError)],
                  [
                    "Cursor",
                    replan.cursor === null
                      ? "unknown (no failed step recorded)"
                      : `step ${replan.cursor.id}, the ${ordinal(replan.cursor.position)} of ${replan.cursor.of} steps: the plan was replaced from there`
                  ],
                  [
                    "Diff",
                    h(
                      "code",
                      null,
                      `removed ${JSON.stringify(replan.diff.removed)} added ${JSON.stringify(replan.diff.added)} revised ${JSON.stringify(replan.diff.revised)}`
                    )
                  ]
                ]),
                h("ol", { class: "diff", "aria-label": `diff of revision ${entry.revision}` }, replan.rows.map(diffRow))
              ),
          stepTable(entry.steps, `Steps of revision ${entry.revision}`)
        )
      }
      case "rejected":
        return h(
          "article",
          { ...common, class: "rejected", "aria-label": "a refused plan" },
          h(
            "p",
            null,
            badge("failed", { word: "plan refused", sign: "✗", meaning: "the session did not accept this plan" }),
            ` (${entry.reason}) `,
            entry.detail,
            h("span", { class: "meta" }, ` · line ${entry.line}`)
          ),
          entry.steps.length === 0
            ? null
            : h(
                "ol",
                { class: "diff" },
                entry.steps.map((s) => h("li", null, stepText(s)))
              )
        )
      case "other":
        return h(
          "article",
          { ...common, class: "other", "aria-label": `event ${entry.event.type}` },
          generic(entry.event, "")
        )
    }
  }

  const timeline = h("div", { class: "feed", role: "feed", "aria-label": `Timeline of ${file.name}` })
  const list = new VirtualList({
    parent: timeline,
    total: entries.length,
    render: entryItem,
    spacer: () => h("div", { class: "spacer" }),
    estimate: 320,
    covered: () => covered(null)
  })
  list.show(entries.map((_, i) => i))
  timeline.addEventListener("focusin", (event) => {
    const article = (event.target as HTMLElement).closest("article")
    if (article !== null) current = Number(article.dataset.index)
  })

  const b = file.budgets
  const result = file.result
  const resultBlock: Child =
    result === null
      ? h("p", { class: "none" }, "No SessionResult: the trace ends before the session finished.")
      : h(
          "details",
          { class: "result", open: true },
          h("summary", null, `SessionResult (${result.recorded ? "as recorded" : "derived from the events"})`),
          pairs([
            ["status", h("strong", null, result.status)],
            ["reason", h("strong", null, result.reason)],
            ["steps", String(result.steps)],
            ["replans", String(result.replans)],
            ["revisions", h("code", null, JSON.stringify(result.revisions))]
          ]),
          h(
            "details",
            null,
            h("summary", null, `history (${Words.count(result.history.length, "started step")}, in execution order)`),
            stepTable(result.history, "every started step, in execution order, with its result or error")
          )
        )

  const element = h(
    "section",
    { class: "view plan", id: file.id, "aria-labelledby": `${file.id}-title`, hidden: true },
    h("h2", { id: `${file.id}-title` }, h("span", { class: "kind" }, "plan session"), " ", file.name),
    problems(file.problems, file.id),
    pairs([
      ["Goal", file.goal ?? "not recorded"],
      [
        "Outcome",
        file.finished === null
          ? h("span", { class: "badge status-unanswered" }, "not finished: the trace has no session.finished")
          : badge(file.finished.status === "completed" ? "ok" : "failed", {
              word: `${file.finished.status}: ${file.finished.reason}`,
              sign: file.finished.status === "completed" ? "✓" : "✗",
              meaning: "how the session ended"
            })
      ],
      ["Steps spent", `${b.steps}${b.maxSteps === null ? "" : ` of ${b.maxSteps} (max_steps)`}`],
      ["Replans spent", `${b.replans}${b.maxReplans === null ? "" : ` of ${b.maxReplans} (max_replans)`}`],
      ...(file.spend === null ? [] : ([["Spent", Words.spent(file.spend)]] as const)),
      ...(file.onFailure === null ? [] : ([["On failure", file.onFailure]] as const))
    ]),
    resultBlock,
    h("h3", { class: "timeline-title" }, `Timeline (${Words.count(entries.length, "entry", "entries")})`),
    timeline
  )

  const goTo = (position: number) => {
    list.scrollTo(position)
    const index = list.item(position)
    if (index === undefined) return
    current = index
    focus(list.element(index))
  }

  return {
    element,
    show: (place) => {
      element.hidden = false
      list.start()
      if (place?.kind !== "revision") return
      const index = entries.findIndex((e) => e.type === "revision" && e.revision === place.n)
      if (index !== -1) goTo(index)
    },
    hide: () => {
      element.hidden = true
      list.stop()
    },
    step: (delta) => {
      const at = current === -1 ? -1 : list.positionOf(current)
      const next = at === -1 ? list.positionInView() : at + delta
      if (next >= 0 && next < list.length) goTo(next)
    },
    search: () => undefined
  }
}
