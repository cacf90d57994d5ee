/**
 * Row 8: `harness view`'s page for a conversation trace of 10,000 events (2,499 turns of a
 * request, a reply, a call and its observation, every seventh call failing), rendered once by
 * `Html.render` and opened in headless Chromium (Debian's, through playwright-core): the time to
 * first render is what the page itself reports (`data-first-render`, milliseconds from the
 * start of navigation to the first frame after it drew its first view), the median over the
 * rounds, each a fresh page. Without Chromium the row says so and has no target.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Trace } from "@agent-harness/executor"
import { Html } from "@agent-harness/viewer"
import { chromium } from "playwright-core"
import { check } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import type * as Table from "./Table.ts"

const events = 10_000
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const target = 1_000

/** A trace of exactly `events` events: two annotations, start, 2,499 turns of four, stop. */
const trace = (): string => {
  const turns = (events - 4) / 4
  const out: Array<string> = [
    Trace.line({ type: "trace.annotated", key: "locale", value: "en" }),
    Trace.line({ type: "trace.annotated", key: "files", value: {} }),
    Trace.line({ type: "run.started", messages: [{ role: "user", content: "Go." }], max_turns: turns, tools: ["read"] })
  ]
  for (let turn = 1; turn <= turns; turn++) {
    const call = { type: "tool_use" as const, id: `c${turn}`, name: "read", input: { path: `notes/${turn}.txt` } }
    const failing = turn % 7 === 0
    out.push(
      Trace.line({ type: "model.requested", turn, messages: 2 * turn - 1 }),
      Trace.line({ type: "model.replied", turn, reply: [{ type: "text", text: `Reading notes/${turn}.txt.` }, call] }),
      Trace.line(Trace.callStarted(turn, call)),
      Trace.line({
        type: "call.answered",
        turn,
        outcome: failing ? "Failed" : "Succeeded",
        result: {
          type: "tool_result",
          tool_use_id: call.id,
          content: failing ? `file 'notes/${turn}.txt' does not exist` : `note ${turn}`,
          is_error: failing
        }
      })
    )
  }
  out.push(Trace.line({ type: "run.ended", stop: "turn_cap", turns }))
  check(out.length === events, `the trace has ${events} events (${out.length})`)
  return out.join("\n")
}

export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const text = trace()
  const renders: Array<number> = []
  let html = ""
  for (let i = 0; i < settings.rounds; i++) {
    const at = performance.now()
    html = Html.render([{ name: "bench.jsonl", text }])
    renders.push(performance.now() - at)
  }
  const renderRow: Table.Row = {
    id: "ref",
    label: `\`Html.render\` of the ${events.toLocaleString("en-US")}-event trace in Node (${(html.length / 1e6).toFixed(1)} MB page)`,
    value: `${Measure.median(renders).toFixed(0)} ms`
  }
  const label = `\`harness view\`: time to first render of a ${events.toLocaleString("en-US")}-event trace, headless Chromium`
  if (!existsSync(chromiumPath)) {
    return [{ id: "8", label: `${label} (not measured: no Chromium at ${chromiumPath})`, value: "—" }, renderRow]
  }
  const dir = mkdtempSync(join(tmpdir(), "harness-bench-view-"))
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run"
    ],
    timeout: 120_000
  })
  try {
    const file = join(dir, "view.html")
    writeFileSync(file, html)
    const url = pathToFileURL(file).href
    const times: Array<number> = []
    // One warm-up page (Chromium's own first start), then the rounds.
    for (let i = 0; i <= settings.rounds; i++) {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
      await page.goto(url, { timeout: 120_000 })
      await page.waitForSelector("html[data-first-render]", { timeout: 120_000 })
      const ms = Number(await page.getAttribute("html", "data-first-render"))
      check(Number.isFinite(ms) && ms > 0, `the page reports its first render (${ms})`)
      check((await page.locator("article.turn").count()) > 0, "the page draws turns")
      if (i > 0) times.push(ms)
      await page.close()
    }
    const median = Measure.median(times)
    return [
      { id: "8", label, value: `${median.toFixed(0)} ms`, target: `< ${target} ms`, met: median < target },
      renderRow
    ]
  } finally {
    await browser.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
