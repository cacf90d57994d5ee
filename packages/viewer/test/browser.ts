/**
 * Chromium for the browser tests, driven by playwright-core: the system's Chromium (Debian's
 * `chromium` package, `/usr/bin/chromium`, or `CHROMIUM_PATH`), never a downloaded browser.
 * Pages are written to, and screenshots taken into, `artifacts/` (kept by CI).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"

/** Where pages and screenshots go. */
export const artifacts = fileURLToPath(new URL("../artifacts/", import.meta.url))

/** The Chromium used. */
export const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Chromium's flags: no sandbox (CI runs as root), nothing that reaches the network on its own. */
export const args = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run"
]

/** Chromium, or why it cannot be started. */
export const launch = async (): Promise<{ readonly browser: Browser } | { readonly reason: string }> => {
  if (!existsSync(executablePath)) {
    return { reason: `no Chromium at ${executablePath} (apt-get install -y chromium, or set CHROMIUM_PATH)` }
  }
  try {
    return { browser: await chromium.launch({ executablePath, args, timeout: 120_000 }) }
  } catch (error) {
    return {
      reason: `Chromium at ${executablePath} did not start: ${error instanceof Error ? error.message : String(error)}`
    }
  }
}

/**
 * Whether `CI` says this is CI: set, and neither empty, `false` nor `0`. The value is always
 * given (`process.env.CI` at the call), never defaulted: a default would also stand in for an
 * explicit `undefined`, and "outside CI" could then not be tested inside CI.
 */
export const inCI = (ci: string | undefined): boolean => ci !== undefined && ci !== "" && ci !== "false" && ci !== "0"

/**
 * What a test does without Chromium: outside CI it is skipped, saying why; with `CI=true` (CI
 * installs Chromium) it fails, saying why, since a test that skips in CI is a failure.
 */
export const withoutBrowser = (
  reason: string,
  skip: (condition: boolean, note?: string) => void,
  ci: string | undefined
): void => {
  if (inCI(ci)) {
    throw new Error(`CI=${ci}: the browser tests need Chromium, and there is none: ${reason}`)
  }
  skip(true, reason)
}

/** Writes a page into `artifacts/` and gives its file URL. */
export const write = (name: string, html: string): string => {
  mkdirSync(artifacts, { recursive: true })
  const path = join(artifacts, name)
  writeFileSync(path, html)
  return pathToFileURL(path).href
}

/** What a page did besides drawing: the requests it made, errors, CSP violations. */
export interface Watch {
  readonly requests: Array<string>
  readonly errors: Array<string>
  /** CSP violations, as the page's `securitypolicyviolation` events saw them. */
  readonly violations: () => Promise<ReadonlyArray<string>>
}

/** Watches a page from before its first script runs. */
export const watch = async (page: Page): Promise<Watch> => {
  const requests: Array<string> = []
  const errors: Array<string> = []
  page.on("request", (request) => {
    requests.push(request.url())
  })
  page.on("pageerror", (error) => {
    errors.push(error.message)
  })
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text())
  })
  await page.addInitScript(
    `window.__violations = []; document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI))`
  )
  return { requests, errors, violations: () => page.evaluate<ReadonlyArray<string>>("window.__violations") }
}

/** Opens a page and waits until the viewer has drawn it. */
export const open = async (page: Page, url: string): Promise<void> => {
  await page.goto(url, { timeout: 120_000 })
  await page.waitForSelector("html[data-ready]", { timeout: 120_000 })
}

/**
 * Waits until a JavaScript expression is true in the page. (Playwright's `waitForFunction`
 * evaluates its predicate with `eval`, which the page's CSP forbids; `evaluate` is not subject
 * to it.)
 */
export const until = async (page: Page, expression: string, timeout = 120_000): Promise<void> => {
  const deadline = Date.now() + timeout
  while (!(await page.evaluate<boolean>(`Boolean(${expression})`))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for: ${expression}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Takes a screenshot into `artifacts/`. */
export const shot = async (page: Page, name: string): Promise<void> => {
  mkdirSync(artifacts, { recursive: true })
  await page.screenshot({ path: join(artifacts, name), timeout: 120_000 })
}
