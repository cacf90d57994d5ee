/**
 * The pages in a real browser (Debian's Chromium, driven by playwright-core): what each call,
 * step and verdict shows, the filters, deep links and keys, a 10,000-turn trace, no request
 * and no CSP violation; link targets of every scheme but http(s) and mailto, however spelt, are
 * no links. Screenshots go to `artifacts/`. When Chromium cannot be started, every test here says
 * why and is skipped, except with `CI=true`, where each fails (`withoutBrowser`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { Html, Input, Server } from "../src/index.ts"
import * as Href from "../client/Href.ts"
import { artifacts, inCI, launch, open, shot, until, type Watch, watch, withoutBrowser, write } from "./browser.ts"
import { trace, twoVariants } from "./trials.ts"
import {
  broken,
  commands,
  hostileHrefs,
  inertHrefs,
  long,
  report,
  runSession,
  sessionTrace,
  showcase
} from "./fixtures.ts"

const timeout = 180_000

let browser: Browser | undefined
let reason = ""

beforeAll(async () => {
  const launched = await launch()
  if ("browser" in launched) browser = launched.browser
  else {
    reason = launched.reason
    console.warn(
      `\n*** Browser tests ${inCI(process.env.CI) ? `failed (CI=${process.env.CI})` : "skipped"}: ${reason} ***\n`
    )
  }
}, timeout)

afterAll(async () => {
  await browser?.close()
}, timeout)

/** A fresh page in the browser, watched; without a browser, skips the test (fails it in CI). */
const fresh = async (
  skip: (condition: boolean, note?: string) => void,
  viewport = { width: 1200, height: 900 }
): Promise<{ readonly page: Page; readonly seen: Watch }> => {
  if (browser === undefined) withoutBrowser(reason, skip, process.env.CI)
  const page = await (browser as Browser).newPage({ viewport })
  return { page, seen: await watch(page) }
}

/** Nothing but the page itself was requested, nothing failed, the CSP blocked nothing. */
const quiet = async (seen: Watch, url: string) => {
  expect(seen.requests.map((r) => r.split("#")[0])).toStrictEqual(seen.requests.map(() => url.split("#")[0]))
  expect(seen.errors).toStrictEqual([])
  expect(await seen.violations()).toStrictEqual([])
}

const turnsShown = (page: Page) => page.locator("article.turn h3").allTextContents()

describe("commands in the browser", () => {
  const url = write("commands.html", Html.render([{ name: "commands.jsonl", text: commands() }]))

  it(
    "shows each command's exit code, its stdout and stderr, a cut stream's size, a binary stream as such",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      await open(page, url)
      expect(await page.locator(".command-head .badge").allTextContents()).toStrictEqual([
        "✗ exit code 3",
        "✓ exit code 0"
      ])
      const [first, second] = [page.locator(".command").nth(0), page.locator(".command").nth(1)]
      expect(await first.locator("pre.stdout").textContent()).toBe("cc main.c\n")
      expect(await first.locator("pre.stderr").textContent()).toBe("main.c:1: error\n")
      expect(await first.locator(".label").allTextContents()).toStrictEqual(["stdout · 10 bytes", "stderr · 16 bytes"])
      expect(await second.locator(".label").allTextContents()).toStrictEqual([
        "stdout · 50.0 KB, first 3 bytes shown",
        "stderr · 8 bytes"
      ])
      expect(await second.locator("p.none").textContent()).toBe("binary output, not shown")
      // The observation the model read is still there, below.
      expect(await page.locator(".call").first().locator("pre.observation").textContent()).toBe(
        "exit code 3\nstdout:\ncc main.c\nstderr:\nmain.c:1: error"
      )
      await shot(page, "commands.png")
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )
})

describe("a conversation trace in the browser", () => {
  const url = write("conversation.html", Html.render([{ name: "showcase.jsonl", text: showcase() }]))

  it(
    "marks each call in a word and a colour, with its arguments and observation, and the streamed turn",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      await open(page, url)
      expect(await page.locator(".call .badge").allTextContents()).toStrictEqual([
        "✗ failed",
        "⊘ not executed",
        "✓ ok",
        "⊖ denied",
        "? outcome unknown",
        "↺ replayed"
      ])
      const colours = await page.evaluate<ReadonlyArray<string>>(
        "[...document.querySelectorAll('.call .badge')].map((b) => getComputedStyle(b).backgroundColor)"
      )
      expect(new Set(colours).size).toBe(6)
      const first = page.locator(".call").first()
      expect(await first.locator("pre.json").textContent()).toBe('{\n  "path": "recipes/salmorejo.txt"\n}')
      expect(await first.locator("pre.observation").textContent()).toBe("file 'recipes/salmorejo.txt' does not exist")
      expect(await page.locator("details.reasoning pre").textContent()).toBe(
        "The recipe is missing. List the recipes folder first."
      )
      // The streamed turn is marked beside its heading, and only it.
      expect(await page.locator(".turn-head .badge").allTextContents()).toStrictEqual(["≋ streamed"])
      expect(await page.locator("#f1-turn-2 .turn-head .status-streamed").getAttribute("title")).toContain(
        "Loop.stream"
      )
      const summary = await page.locator("dl.summary").first().textContent()
      expect(summary).toContain("end after 4 model calls")
      expect(summary).toContain("4 of at most 10 (max_turns)")
      expect(summary).toContain("input_tokens 1,200 · output_tokens 85")
      expect(summary).toMatch(/Retries\s*1/)
      expect(await page.locator(".generic code").allTextContents()).toStrictEqual(["usage", "retry"])
      await shot(page, "conversation.png")
      // Every turn drawn: the picture in the README (docs/images/viewer.png).
      await page.setViewportSize({ width: 1100, height: 1820 })
      await until(page, "document.querySelectorAll('article.turn').length === 4")
      await page.screenshot({ path: `${artifacts}conversation-all.png`, timeout })
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )

  it(
    "filters: only errors, one tool, a search (matches marked), and says how many turns it shows",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip, { width: 1200, height: 2400 })
      await open(page, url)
      expect(await turnsShown(page)).toStrictEqual(["Turn 1", "Turn 2", "Turn 3", "Turn 4"])
      await page.getByLabel("only errors").check()
      expect(await turnsShown(page)).toStrictEqual(["Turn 1", "Turn 2", "Turn 3"])
      expect(await page.locator(".count").textContent()).toBe("showing 3 of 4 turns")
      await page.getByLabel("only errors").uncheck()
      await page.getByLabel("Tool").selectOption("append")
      expect(await turnsShown(page)).toStrictEqual(["Turn 2", "Turn 3"])
      await page.getByLabel("Tool").selectOption("")
      await page.getByLabel("Search").fill("recipes folder")
      await until(page, "document.querySelectorAll('article.turn').length === 1")
      expect(await turnsShown(page)).toStrictEqual(["Turn 2"])
      expect(await page.locator("mark").allTextContents()).toStrictEqual(["recipes folder"])
      await page.getByLabel("Search").press("Escape")
      await until(page, "document.querySelectorAll('article.turn').length === 4")
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )

  it(
    "opens a deep link at its turn, and moves between turns with the keyboard",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip, { width: 1200, height: 500 })
      await open(page, `${url}#turn-3`)
      expect(await page.evaluate("document.activeElement.id")).toBe("f1-turn-3")
      const top = await page.evaluate<number>("document.getElementById('f1-turn-3').getBoundingClientRect().top")
      expect(top).toBeGreaterThanOrEqual(0)
      expect(top).toBeLessThan(200)
      await page.keyboard.press("j")
      expect(await page.evaluate("document.activeElement.id")).toBe("f1-turn-4")
      await page.keyboard.press("k")
      await page.keyboard.press("k")
      expect(await page.evaluate("document.activeElement.id")).toBe("f1-turn-2")
      await page.keyboard.press("/")
      expect(await page.evaluate("document.activeElement.type")).toBe("search")
      expect(await page.locator("#f1-turn-2 h3 a").getAttribute("href")).toBe("#turn-2")
      await page.locator("#f1-turn-2 h3 a").click()
      expect(await page.evaluate("location.hash")).toBe("#turn-2")
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )

  it(
    "reads in a narrow window and in the dark",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip, { width: 360, height: 800 })
      await open(page, url)
      expect(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true)
      await shot(page, "conversation-narrow.png")
      const light = await page.evaluate<string>("getComputedStyle(document.body).backgroundColor")
      await page.emulateMedia({ colorScheme: "dark" })
      const dark = await page.evaluate<string>("getComputedStyle(document.body).backgroundColor")
      expect(light).toBe("rgb(255, 255, 255)")
      expect(dark).toBe("rgb(13, 17, 23)")
      await shot(page, "conversation-dark-narrow.png")
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )
})

describe("a plan session in the browser", () => {
  it(
    "draws each revision's diff (<del>, <ins>, revised with arg changes), the cursor, the outcomes, the budgets",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      const url = write("plan.html", Html.render([{ name: "session.jsonl", text: sessionTrace(await runSession()) }]))
      await open(page, `${url}#revision-1`)
      expect(await page.evaluate("document.activeElement.id")).toBe("f1-revision-1")
      const revision = page.locator("#f1-revision-1")
      expect(await revision.locator(".diff-removed del").allTextContents()).toStrictEqual([
        '3 write {"path":"list.txt","text":"bread"}'
      ])
      expect(await revision.locator(".diff-added ins").allTextContents()).toStrictEqual([
        '1 read {"path":"recipes/gazpacho.txt"}',
        '4 write {"path":"list.txt","txt":"tomatoes"}',
        '5 read {"path":"list.txt"}'
      ])
      expect(await revision.locator(".diff-revised > del").textContent()).toBe(
        '2 read {"path":"recipes/salmorejo.txt"}'
      )
      expect(await revision.locator(".diff-revised > ins").textContent()).toBe('2 read {"path":"recipes/gazpacho.txt"}')
      expect(await revision.locator(".arg-changes li").allTextContents()).toStrictEqual([
        'path: "recipes/salmorejo.txt" → "recipes/gazpacho.txt"'
      ])
      const replan = await revision.locator(".replan dl").textContent()
      expect(replan).toContain("file 'recipes/salmorejo.txt' does not exist")
      expect(replan).toContain("step 2, the 2nd of 3 steps")
      expect(await revision.locator("table.steps .badge").allTextContents()).toStrictEqual([
        "↺ kept",
        "✓ succeeded",
        "⊘ not executed",
        "· not reached"
      ])
      const head = await page.locator("section.plan > dl.summary").textContent()
      expect(head).toContain("6 of 10 (max_steps)")
      expect(head).toContain("2 of 2 (max_replans)")
      expect(head).toContain("completed: goal_met")
      await shot(page, "plan.png")
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )
})

describe("test reports in the browser", () => {
  it(
    "puts before and fixed side by side, the reserved rows apart, and links a row to its trace",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      const url = write(
        "report.html",
        Html.render([
          { name: "runs/salmorejo.jsonl", text: showcase() },
          { name: "before.jsonl", text: report("before") },
          { name: "fixed.jsonl", text: report("fixed") }
        ])
      )
      await open(page, `${url}#f2`)
      expect(await page.locator("#f2-main thead th").allTextContents()).toStrictEqual([
        "scenario",
        "file",
        "before",
        "fixed"
      ])
      const timeout_ = page.locator("#f2-main tbody tr", { hasText: "a TIMEOUT reaches the model" })
      expect(await timeout_.locator("td .badge").allTextContents()).toStrictEqual(["✗ FAIL", "✓ PASS"])
      expect(await timeout_.locator("th").textContent()).toContain("verdicts differ")
      expect(await page.locator("#f2-reserved tbody th").allTextContents()).toStrictEqual([
        "catalogue.search: response contract › res-001 reserved · verdicts differ",
        "held out: unavailable · verdicts differ"
      ])
      await page.getByLabel("only where the columns differ").check()
      expect(await page.locator("#f2-main tbody th").count()).toBe(3)
      await page.getByLabel("only where the columns differ").uncheck()
      await shot(page, "report.png")
      await page.locator("#f2-main a.trace-link").first().click()
      await page.waitForSelector("#f1:not([hidden])", { timeout })
      expect(await page.evaluate("location.hash")).toBe("#f1")
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )
})

describe("trials reports in the browser", () => {
  it(
    "draws the pass-rate and difference charts, and a bar opens its failing trial's trace",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      const report = { name: "out/report.jsonl", text: twoVariants() }
      const traces = Input.linked([report]).map((name, i) => ({ name, text: trace(i + 1) }))
      const url = write("trials.html", Html.render([report, ...traces]))
      await open(page, url)
      await page.waitForSelector("#f1:not([hidden]) svg.trials-chart.rates", { timeout })
      expect(await page.locator("#f1 svg.rates rect.bar").count()).toBe(3)
      const box = await page.locator("#f1 svg.rates rect.bar").first().boundingBox()
      const track = await page.locator("#f1 svg.rates rect.bar-track").first().boundingBox()
      // 70% of the axis, as Chromium lays it out.
      expect((box?.width ?? 0) / (track?.width ?? 1)).toBeCloseTo(0.7, 2)
      expect(await page.locator("#f1 svg.differences circle").count()).toBe(2)
      await shot(page, "trials.png")
      await page.locator("#f1 svg.rates a.bar-link").first().click()
      await page.waitForSelector("#f2:not([hidden])", { timeout })
      expect(await page.evaluate("location.hash")).toBe("#f2")
      expect(await page.locator("#f1").isHidden()).toBe(true)
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )
})

describe("links in the browser", () => {
  /** A report whose rows link to `targets`, one row each, plus one to a relative trace. */
  const linked = (targets: ReadonlyArray<string>): string => {
    const [first] = report("fixed").split("\n")
    const verdict = JSON.parse(first as string) as Record<string, unknown>
    return [...targets, "runs/other.jsonl"]
      .map((trace, i) => JSON.stringify({ ...verdict, name: `link ${i}`, file: `scenarios/l${i}.json`, trace }))
      .join("\n")
  }

  it(
    "Chromium reads every hostile spelling as a script or other scheme; the filter refuses each, and the inert ones stay relative",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      const url = write("links-blank.html", Html.render([{ name: "t.jsonl", text: showcase() }]))
      await open(page, url)
      /** Each target's scheme as Chromium reads it, set as an anchor's `href` the way the page sets it. */
      const read = (hrefs: ReadonlyArray<string>) =>
        page.evaluate<ReadonlyArray<string>>(
          `${JSON.stringify(hrefs)}.map((href) => { const a = document.createElement("a"); a.setAttribute("href", href); return a.protocol })`
        )
      const hostile = await read(hostileHrefs)
      hostileHrefs.forEach((href, i) => {
        expect(["http:", "https:", "mailto:"], `Chromium reads ${JSON.stringify(href)}`).not.toContain(hostile[i])
        expect(Href.safe(href), JSON.stringify(href)).toBeNull()
      })
      // The first fifteen are `javascript:` to Chromium, however they are spelt.
      expect(hostile.slice(0, 15)).toStrictEqual(hostileHrefs.slice(0, 15).map(() => "javascript:"))
      expect(hostile.slice(15, 18)).toStrictEqual(["vbscript:", "vbscript:", "vbscript:"])
      expect(hostile.slice(18, 21)).toStrictEqual(["data:", "data:", "data:"])
      // The inert ones are relative paths to Chromium (the page's own file: scheme), and so to the filter.
      const inert = await read(inertHrefs)
      expect(inert).toStrictEqual(inertHrefs.map(() => "file:"))
      const kept = inertHrefs.map((href) => Href.safe(href))
      for (const out of kept) expect(out).not.toMatch(/^[a-z][a-z0-9+.-]*:/i)
      expect(await read(kept.filter((out): out is string => out !== null))).toStrictEqual(
        kept.filter((out) => out !== null).map(() => "file:")
      )
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )

  it(
    "a report row whose trace is a hostile link shows it as text, no link: clicking it does nothing",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip, { width: 1200, height: 4000 })
      const dialogs: Array<string> = []
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message())
        void dialog.dismiss()
      })
      const url = write("links.html", Html.render([{ name: "links.jsonl", text: linked(hostileHrefs) }]))
      await open(page, url)
      const links = await page.locator("a.trace-link").evaluateAll((as) => as.map((a) => a.getAttribute("href")))
      expect(links).toStrictEqual(["runs/other.jsonl"])
      const notes = page.locator("td .note")
      expect(await notes.count()).toBe(hostileHrefs.length)
      for (let i = 0; i < hostileHrefs.length; i++) {
        await notes.nth(i).scrollIntoViewIfNeeded({ timeout })
        await notes.nth(i).click({ timeout })
      }
      // Every anchor the page drew, whatever it is for: only anchors, relative paths, http(s), mailto.
      const protocols = await page.evaluate<ReadonlyArray<string>>(
        "[...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href').startsWith('#') ? '#' : a.protocol)"
      )
      for (const protocol of protocols) expect(["#", "file:", "http:", "https:", "mailto:"]).toContain(protocol)
      expect(page.url()).toBe(url)
      expect(dialogs).toStrictEqual([])
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )
})

describe("bad input in the browser", () => {
  it(
    "shows what it can of a malformed trace and names each bad line and JSON path; an unknown file says why",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      const url = write(
        "broken.html",
        Html.render([
          { name: "broken.jsonl", text: broken() },
          { name: "notes.txt", text: "not a trace" }
        ])
      )
      await open(page, url)
      const problems = await page.locator("#f1 .problems li").allTextContents()
      expect(problems[0]).toMatch(/^line 4: invalid JSON/)
      expect(problems.slice(1)).toStrictEqual(["line 6, at outcome: missing", "line 7, at reply[1].id: missing"])
      expect(await page.locator("#f1 .call .badge").allTextContents()).toStrictEqual(["✓ ok", "∅ no observation"])
      expect(await page.locator("#f1 .generic.unreadable code").allTextContents()).toStrictEqual([
        "call.answered",
        "reply block (unreadable)"
      ])
      await shot(page, "broken.png")
      await page.locator("nav a", { hasText: "notes.txt" }).click()
      expect(await page.locator("#f2 .problems li").first().textContent()).toBe("at (file): no line is JSON")
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )

  it(
    "the CSP check itself: a script the policy does not allow is reported",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      const html = Html.render([{ name: "t.jsonl", text: showcase() }])
      const tampered = html.replace(/<script>[\s\S]*?<\/script>/, "<script>document.title = 'ran'</script>")
      await page.goto(write("tampered.html", tampered), { timeout })
      await until(page, "window.__violations.length > 0")
      expect(await seen.violations()).toStrictEqual(["script-src-elem inline"])
      expect(await page.title()).not.toBe("ran")
      await page.close()
    },
    timeout
  )
})

describe("a 10,000-turn trace in the browser", () => {
  it(
    "draws only the turns in view, scrolls to the end, opens a deep link in the middle, searches",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      const url = write("long.html", Html.render([{ name: "long.jsonl", text: long(10_000) }]))
      await open(page, url)
      expect(await page.locator(".count").textContent()).toBe("10,000 turns")
      expect(await page.locator("article.turn").count()).toBeLessThan(40)
      await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
      await until(page, "document.querySelector('#f1-turn-10000') !== null")
      await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
      await until(
        page,
        "document.querySelector('#f1-turn-10000').getBoundingClientRect().bottom <= window.innerHeight + 1"
      )
      expect(await page.locator("article.turn").count()).toBeLessThan(40)
      await page.evaluate("location.hash = '#turn-5000'")
      await until(page, "document.activeElement.id === 'f1-turn-5000'")
      expect(await page.locator("#f1-turn-5000").getAttribute("aria-posinset")).toBe("5000")
      expect(await page.locator("#f1-turn-5000").getAttribute("aria-setsize")).toBe("10000")
      await page.getByLabel("Search").fill("notes/9999.txt")
      await until(page, "document.querySelectorAll('article.turn').length === 1")
      expect(await turnsShown(page)).toStrictEqual(["Turn 9999"])
      await page.getByLabel("Search").fill("")
      await page.getByLabel("only errors").check()
      await until(page, "document.querySelector('.count').textContent === 'showing 1,428 of 10,000 turns'")
      await shot(page, "long.png")
      await quiet(seen, url)
      await page.close()
    },
    timeout
  )
})

describe("the served page in the browser", () => {
  it(
    "loads from 127.0.0.1 with no other request and no CSP violation",
    async (ctx) => {
      const { page, seen } = await fresh(ctx.skip)
      const html = Html.render([{ name: "showcase.jsonl", text: showcase() }])
      await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const served = yield* Server.serve(html)
            yield* Effect.promise(() => open(page, served.url))
            yield* Effect.promise(() => quiet(seen, served.url))
          })
        )
      )
      expect(await page.locator(".call").count()).toBe(6)
      await page.close()
    },
    timeout
  )
})
