/**
 * The page's script: reads the data the page embeds, draws one view per file (one shown at a
 * time, chosen by the location hash), and handles deep links and keys. When the first view is
 * drawn it sets `data-ready` on `<html>` and `data-first-render` to the milliseconds since the
 * page started loading (the bench reads it).
 */
import type { File, Page } from "../src/Model.ts"
import * as ConversationView from "./ConversationView.ts"
import { h } from "./Dom.ts"
import * as Hash from "./Hash.ts"
import { problems, type View } from "./Parts.ts"
import * as PlanView from "./PlanView.ts"
import * as ReportView from "./ReportView.ts"

const kindWords: { readonly [K in File["kind"]]: string } = {
  conversation: "conversation trace",
  plan: "plan session",
  report: "test report",
  trials: "trials report",
  unknown: "unreadable file"
}

const unknownView = (file: File): View => {
  const element = h(
    "section",
    { class: "view unknown", id: file.id, "aria-labelledby": `${file.id}-title`, hidden: true },
    h("h2", { id: `${file.id}-title` }, h("span", { class: "kind" }, "unreadable file"), " ", file.name),
    problems(file.problems, file.id)
  )
  return {
    element,
    show: () => {
      element.hidden = false
    },
    hide: () => {
      element.hidden = true
    },
    step: () => undefined,
    search: () => undefined
  }
}

/** A trials report: its section is drawn in the page's HTML (with SVG charts); the view moves it into place. */
const trialsView = (file: File): View => {
  const element =
    document.getElementById(file.id) ??
    h("section", { class: "view trials", id: file.id }, "This trials report is missing.")
  element.hidden = true
  return {
    element,
    show: () => {
      element.hidden = false
    },
    hide: () => {
      element.hidden = true
    },
    step: () => undefined,
    search: () => undefined
  }
}

const start = (): void => {
  const data = document.getElementById("viewer-data")
  const root = document.getElementById("viewer")
  if (data === null || root === null) return
  const page = JSON.parse(data.textContent ?? "") as Page
  const files = page.files
  const firstOf = (kind: File["kind"]) => files.find((f) => f.kind === kind)?.id
  const views = new Map<string, View>()
  const viewOf = (file: File): View => {
    let view = views.get(file.id)
    if (view === undefined) {
      const first = firstOf(file.kind) === file.id
      const link = (place: Hash.Target["place"]) => Hash.format(file.id, place, first)
      view =
        file.kind === "conversation"
          ? ConversationView.make(file, link)
          : file.kind === "plan"
            ? PlanView.make(file, link)
            : file.kind === "report"
              ? ReportView.make(file)
              : file.kind === "trials"
                ? trialsView(file)
                : unknownView(file)
      views.set(file.id, view)
      main.appendChild(view.element)
    }
    return view
  }

  const nav =
    files.length > 1
      ? h(
          "nav",
          { "aria-label": "Files" },
          h(
            "ul",
            null,
            files.map((f) =>
              h(
                "li",
                null,
                h(
                  "a",
                  { href: `#${f.id}`, "data-file": f.id },
                  h("span", { class: "kind" }, kindWords[f.kind]),
                  " ",
                  f.name,
                  f.problems.length > 0 ? h("span", { class: "note" }, ` (${f.problems.length} problems)`) : null
                )
              )
            )
          )
        )
      : null
  const main = h("main", null)
  // Drawn in the page's HTML so it shows without the script; hidden until its view is chosen.
  for (const file of files) {
    const element = file.kind === "trials" ? document.getElementById(file.id) : null
    if (element !== null) element.hidden = true
  }
  root.replaceChildren(h("header", { class: "page-head" }, h("h1", null, page.title), nav), main)
  if (files.length === 0) main.appendChild(h("p", { class: "none" }, "No files were given."))

  let shown: View | undefined
  const route = () => {
    const target = Hash.parse(location.hash)
    const kind = target.place?.kind === "revision" ? "plan" : "conversation"
    const id = target.file ?? (target.place === null ? undefined : firstOf(kind)) ?? files[0]?.id
    const file = files.find((f) => f.id === id) ?? files[0]
    if (file === undefined) return
    const view = viewOf(file)
    if (shown !== view) {
      shown?.hide()
      shown = view
    }
    for (const a of document.querySelectorAll<HTMLAnchorElement>("nav a")) {
      if (a.dataset.file === file.id) a.setAttribute("aria-current", "page")
      else a.removeAttribute("aria-current")
    }
    view.show(target.place)
  }
  window.addEventListener("hashchange", route)
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return
    const target = event.target as HTMLElement
    const typing = target.closest("input, select, textarea") !== null
    if (event.key === "/" && !typing) {
      event.preventDefault()
      shown?.search()
    } else if ((event.key === "j" || event.key === "k") && !typing) {
      event.preventDefault()
      shown?.step(event.key === "j" ? 1 : -1)
    }
  })
  route()
  document.documentElement.dataset.ready = "true"
  requestAnimationFrame(() => {
    document.documentElement.dataset.firstRender = String(Math.round(performance.now()))
  })
}

start()
