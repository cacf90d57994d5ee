/**
 * A conversation trace: the summary (stop, budgets, calls by status, usage, retries), the
 * opening, then every turn in a virtual feed with a search box and filters (only errors, one
 * tool). Each call shows its arguments and observation, marked in a word and a colour.
 */
import type { Call, CommandReport, CommandStream, Conversation, Turn } from "../src/Model.ts"
import { type Child, h, json, marked } from "./Dom.ts"
import * as Filter from "./Filter.ts"
import type { Target } from "./Hash.ts"
import { badge, covered, field, focus, generic, pairs, problems, type View } from "./Parts.ts"
import { VirtualList } from "./VirtualList.ts"
import * as Words from "./Words.ts"

const statuses = Object.keys(Words.call) as ReadonlyArray<keyof typeof Words.call>

/** A size in bytes as people read it: `812 bytes`, `48.8 KB`. */
const size = (bytes: number): string =>
  bytes < 1000 ? `${bytes} byte${bytes === 1 ? "" : "s"}` : `${(bytes / 1000).toFixed(1)} KB`

/** How a command ended, in words: `exit code 3`, `killed by SIGKILL`, `timed out (killed)`. */
const ending = (command: CommandReport): string =>
  command.timedOut
    ? "timed out (killed)"
    : command.exitCode !== null
      ? `exit code ${command.exitCode}`
      : `killed by ${command.signal ?? "a signal"}`

/** One stream of a command: its text, or what it was when there is none to show. */
const streamBlock = (name: string, stream: CommandStream, query: string): HTMLElement =>
  h(
    "div",
    null,
    h(
      "div",
      { class: "label" },
      `${name} · ${size(stream.bytes)}${stream.truncated ? `, first ${size(new TextEncoder().encode(stream.text).length)} shown` : ""}`
    ),
    stream.binary
      ? h("p", { class: "none" }, "binary output, not shown")
      : stream.bytes === 0
        ? h("p", { class: "none" }, "(empty)")
        : h("pre", { class: `stream ${name}` }, marked(stream.text, query))
  )

/** A command's exit code and its two streams, above its observation. */
const commandBlock = (command: CommandReport, query: string): HTMLElement =>
  h(
    "div",
    { class: "command" },
    h(
      "div",
      { class: "command-head" },
      command.exitCode === 0 && !command.timedOut
        ? badge("ok", { word: ending(command), sign: "✓", meaning: "the command exited with 0" })
        : badge("failed", {
            word: ending(command),
            sign: "✗",
            meaning: "the command exited with another code, was killed, or ran past its timeout"
          })
    ),
    h(
      "div",
      { class: "io" },
      streamBlock("stdout", command.stdout, query),
      streamBlock("stderr", command.stderr, query)
    )
  )

const callItem = (call: Call, query: string): HTMLElement =>
  h(
    "li",
    { class: `call status-${call.status}` },
    h(
      "div",
      { class: "call-head" },
      badge(call.status, Words.call[call.status]),
      " ",
      h("code", { class: "tool" }, marked(call.name, query)),
      " ",
      h("span", { class: "call-id" }, "id ", marked(call.id, query)),
      call.outcome === null ? null : h("span", { class: "outcome" }, ` outcome ${call.outcome}`),
      call.note === undefined ? null : h("span", { class: "note" }, ` (${call.note})`)
    ),
    call.command === undefined ? null : commandBlock(call.command, query),
    h(
      "div",
      { class: "io" },
      h(
        "div",
        null,
        h("div", { class: "label" }, "arguments"),
        h("pre", { class: "json" }, marked(json(call.input), query))
      ),
      h(
        "div",
        null,
        h("div", { class: "label" }, call.isError === true ? "observation (is_error)" : "observation"),
        call.content === null
          ? h("p", { class: "none" }, "no observation recorded")
          : h("pre", { class: "observation" }, marked(call.content, query))
      )
    )
  )

/** The conversation view. */
export const make = (file: Conversation, link: (place: Target["place"]) => string): View => {
  const turns = file.turns
  const texts: Array<string | undefined> = []
  let filter: Filter.TurnFilter = { query: "", errorsOnly: false, tool: "" }
  let current = -1

  const turnItem = (index: number, position: number, shown: number): HTMLElement => {
    const turn = turns[index] as Turn
    const q = filter.query
    const heading = `${file.id}-turn-${turn.turn}-h`
    const errors = turn.calls.filter((c) => Words.isErrorStatus(c.status)).length
    return h(
      "article",
      {
        class: `turn${Filter.hasError(turn) ? " has-error" : ""}`,
        id: `${file.id}-turn-${turn.turn}`,
        tabindex: "-1",
        "aria-posinset": position + 1,
        "aria-setsize": shown,
        "aria-labelledby": heading,
        "data-index": index
      },
      h(
        "header",
        { class: "turn-head" },
        h("h3", { id: heading }, h("a", { href: link({ kind: "turn", n: turn.turn }) }, `Turn ${turn.turn}`)),
        turn.streamed
          ? badge("streamed", {
              word: "streamed",
              sign: "≋",
              meaning: "the reply came as a stream (Loop.stream), shown as it was written; it is the same reply"
            })
          : null,
        h(
          "span",
          { class: "meta" },
          turn.messages === null ? null : `model called with ${Words.count(turn.messages, "message")} · `,
          Words.count(turn.calls.length, "call"),
          errors > 0 ? ` · ${Words.count(errors, "error")}` : "",
          ` · line ${turn.line}`
        )
      ),
      turn.reasoning.map((r) =>
        h("details", { class: "reasoning", open: true }, h("summary", null, "reasoning"), h("pre", null, marked(r, q)))
      ),
      turn.text.map((t) => h("p", { class: "reply" }, marked(t, q))),
      turn.calls.length === 0
        ? null
        : h(
            "ol",
            { class: "calls" },
            turn.calls.map((c) => callItem(c, q))
          ),
      turn.failed === null
        ? null
        : h(
            "p",
            { class: "model-failed" },
            badge("failed", {
              word: "model failed",
              sign: "✗",
              meaning: "the model call failed; the loop failed with it"
            }),
            " ",
            marked(turn.failed, q)
          ),
      turn.other.map((e) => generic(e, q))
    )
  }

  const search = h("input", {
    type: "search",
    placeholder: "text, tool, id, argument…",
    "aria-controls": `${file.id}-feed`
  })
  const errorsOnly = h("input", { type: "checkbox" })
  const tool = h(
    "select",
    null,
    h("option", { value: "" }, "any tool"),
    file.called.map((name) => h("option", { value: name }, name))
  )
  const shownCount = h("span", { class: "count", role: "status", "aria-live": "polite" })
  const toolbar = h(
    "div",
    { class: "toolbar", role: "search", "aria-label": `Filter the turns of ${file.name}` },
    field("Search", search),
    h("label", { class: "field check" }, errorsOnly, h("span", null, "only errors")),
    field("Tool", tool),
    shownCount
  )
  const feed = h("div", { class: "feed", role: "feed", id: `${file.id}-feed`, "aria-label": `Turns of ${file.name}` })
  const list = new VirtualList({
    parent: feed,
    total: turns.length,
    render: turnItem,
    spacer: () => h("div", { class: "spacer" }),
    estimate: 220,
    covered: () => covered(toolbar)
  })

  const apply = () => {
    const shown = Filter.turns(turns, filter, texts)
    list.show(shown)
    // The first match in view: back to the top of the feed when the page was further down.
    const feedTop = feed.getBoundingClientRect().top
    if (!element.hidden && feedTop < 0) window.scrollBy(0, feedTop - covered(toolbar))
    shownCount.textContent =
      shown.length === turns.length
        ? `${Words.count(turns.length, "turn")}`
        : `showing ${shown.length.toLocaleString("en-US")} of ${Words.count(turns.length, "turn")}`
  }
  let timer = 0
  search.addEventListener("input", () => {
    clearTimeout(timer)
    timer = window.setTimeout(() => {
      filter = { ...filter, query: search.value.trim().toLowerCase() }
      apply()
    }, 120)
  })
  search.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && search.value !== "") {
      search.value = ""
      filter = { ...filter, query: "" }
      apply()
    }
  })
  errorsOnly.addEventListener("change", () => {
    filter = { ...filter, errorsOnly: errorsOnly.checked }
    apply()
  })
  tool.addEventListener("change", () => {
    filter = { ...filter, tool: tool.value }
    apply()
  })
  feed.addEventListener("focusin", (event) => {
    const article = (event.target as HTMLElement).closest("article")
    if (article !== null) current = Number(article.dataset.index)
  })

  const counts = statuses.filter((s) => file.counts[s] > 0)
  const stop = file.stop
  const summary = pairs([
    [
      "Stop",
      stop === null
        ? h("span", { class: "badge status-unanswered" }, "no stop event: the run did not finish, or the trace was cut")
        : [h("strong", null, stop.reason), ` after ${Words.count(stop.turns, "model call")}`]
    ],
    [
      "Turns",
      `${turns.length.toLocaleString("en-US")}${file.maxTurns === null ? "" : ` of at most ${file.maxTurns.toLocaleString("en-US")} (max_turns)`}`
    ],
    [
      "Calls",
      counts.length === 0
        ? "none"
        : counts.flatMap((s) => [badge(s, Words.call[s]), ` ${file.counts[s].toLocaleString("en-US")} `])
    ],
    ...(file.usage === null
      ? []
      : ([
          [
            "Usage",
            Object.entries(file.usage)
              .map(([k, v]) => `${k} ${v.toLocaleString("en-US")}`)
              .join(" · ")
          ]
        ] as const)),
    ...(file.spend === null ? [] : ([["Spent", Words.spent(file.spend)]] as const)),
    ...(file.retries === 0 ? [] : ([["Retries", String(file.retries)]] as const)),
    ["Tools offered", file.tools.length === 0 ? "none recorded" : file.tools.join(", ")],
    ...(stop?.text === null || stop === null ? [] : ([["Final text", stop.text]] as const))
  ])

  const opening: Child =
    file.opening.length === 0
      ? null
      : h(
          "details",
          { class: "opening" },
          h("summary", null, `Opening messages (${file.opening.length})`),
          file.opening.map((m) =>
            h("div", { class: "message" }, h("div", { class: "label" }, m.role), h("pre", null, m.text))
          )
        )
  const annotations: Child =
    file.annotations.length === 0
      ? null
      : h(
          "details",
          { class: "annotations" },
          h("summary", null, `Annotations (${file.annotations.length})`),
          h(
            "dl",
            { class: "fields" },
            file.annotations.map((a) => [
              h("dt", null, a.key),
              h("dd", null, h("pre", { class: "json" }, json(a.value)))
            ])
          )
        )
  const outside: Child =
    file.other.length === 0
      ? null
      : h(
          "details",
          { class: "outside" },
          h("summary", null, `Events outside any turn (${file.other.length})`),
          file.other.slice(0, 500).map((e) => generic(e, ""))
        )
  const legend = h(
    "details",
    { class: "legend" },
    h("summary", null, "What the marks mean"),
    h(
      "ul",
      null,
      statuses.map((s) => h("li", null, badge(s, Words.call[s]), " ", Words.call[s].meaning))
    ),
    h("p", null, "Keys: / search · j and k next and previous turn · Esc clears the search")
  )

  const element = h(
    "section",
    { class: "view conversation", id: file.id, "aria-labelledby": `${file.id}-title`, hidden: true },
    h("h2", { id: `${file.id}-title` }, h("span", { class: "kind" }, "conversation trace"), " ", file.name),
    problems(file.problems, file.id),
    summary,
    legend,
    opening,
    annotations,
    outside,
    toolbar,
    feed
  )
  apply()

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
      if (place?.kind !== "turn") return
      const index = turns.findIndex((t) => t.turn === place.n)
      if (index === -1) return
      if (list.positionOf(index) === -1) {
        search.value = ""
        errorsOnly.checked = false
        tool.value = ""
        filter = { query: "", errorsOnly: false, tool: "" }
        apply()
      }
      goTo(list.positionOf(index))
      for (const old of feed.querySelectorAll(".target")) old.classList.remove("target")
      list.element(index)?.classList.add("target")
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
    search: () => search.focus()
  }
}
