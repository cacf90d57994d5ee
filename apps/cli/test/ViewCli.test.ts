/**
 * `harness view` end to end: what `harness run --trace` and `harness test --json` leave behind,
 * drawn as one page written with `--out` or served on 127.0.0.1 until SIGTERM (exit 0). The page
 * is drawn in the browser from the model embedded in it (the viewer's own Chromium tests check
 * the DOM); here the embedded model is read back and checked. Bad input: an input that cannot be
 * read exits 2 naming it and writes nothing; a malformed trace still makes a page naming the line
 * and path, exit 0.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import process from "node:process"
import type { Model } from "@agent-harness/viewer"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { harness, SLOW, spawnTimeout } from "./fixtures/harness.ts"
import { demoDir, salmorejoEn, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("view")
afterAll(() => temp.remove())

const replanOnce = join(scenariosDir, "plan", "replan-once.json")
const dataOpen = '<script id="viewer-data" type="application/json">'

/** The page model embedded in a page (the viewer escapes `<`, `>`, `&` in it; JSON reads them back). */
const modelOf = (html: string): Model.Page => {
  const start = html.indexOf(dataOpen)
  assert.isAbove(start, -1, "the page has its data block")
  const end = html.indexOf("</script>", start)
  return JSON.parse(html.slice(start + dataOpen.length, end)) as Model.Page
}

/** Runs `harness view ARGS --out OUT` and gives the run and the page's model. */
const viewTo = (out: string, ...files: ReadonlyArray<string>) => {
  const r = harness(["view", ...files, "--out", out])
  assert.strictEqual(r.code, 0, r.stderr)
  return { run: r, html: readFileSync(out, "utf8"), page: modelOf(readFileSync(out, "utf8")) }
}

describe("harness view --out", () => {
  it("a plan session recorded with --trace: each replan's diff, the cursor and the result", SLOW, () => {
    const trace = temp.path("plan/replan-once.jsonl")
    mkdirSync(temp.path("plan"), { recursive: true })
    assert.strictEqual(harness(["run", replanOnce, "--trace", trace]).code, 0)
    const out = temp.path("plan/report.html")
    const { run, html, page } = viewTo(out, trace)
    expect(run.stdout).toBe("")
    expect(run.stderr).toBe(`wrote ${out}: 1 plan session\n`)
    expect(html.startsWith("<!doctype html>")).toBe(true)
    expect(html).toContain("Content-Security-Policy")
    const plan = page.files[0]
    assert(plan?.kind === "plan", "a plan session")
    expect(plan.problems).toStrictEqual([])
    expect(plan.goal).toBe("Publish the weekly report")
    expect(plan.budgets).toStrictEqual({ steps: 4, maxSteps: 10, replans: 1, maxReplans: 2 })
    const revisions = plan.entries.flatMap((e) => (e.type === "revision" ? [e] : []))
    expect(revisions.map((r) => r.revision)).toStrictEqual([0, 1])
    const replan = revisions[1]?.replan
    expect(replan?.lastError).toBe("TIMEOUT: the publishing service did not answer")
    expect(replan?.cursor).toStrictEqual({ id: 2, position: 2, of: 3 })
    // Drawn as <del> (removed), <ins> (added) and kept rows.
    expect(replan?.rows.map((row) => `${row.mark} ${row.step.id}`)).toStrictEqual(["added 4", "removed 2", "kept 3"])
    expect(plan.result).toMatchObject({ recorded: true, status: "completed", reason: "goal_met" })
  })

  it("a conversation trace: every call marked, the stop", SLOW, () => {
    const trace = temp.path("conversation/salmorejo.jsonl")
    mkdirSync(temp.path("conversation"), { recursive: true })
    assert.strictEqual(harness(["run", salmorejoEn, "--trace", trace]).code, 0)
    const { page } = viewTo(temp.path("conversation/report.html"), trace)
    const conversation = page.files[0]
    assert(conversation?.kind === "conversation", "a conversation trace")
    expect(conversation.problems).toStrictEqual([])
    expect(conversation.stop).toMatchObject({ reason: "end", turns: 4 })
    expect(conversation.counts).toMatchObject({ ok: 2, failed: 1, not_executed: 1 })
  })

  it("a harness test --json report, with a run's line linked to its trace", SLOW, () => {
    mkdirSync(temp.path("report"), { recursive: true })
    const suite = harness(["test", join(scenariosDir, "plan"), "--json"])
    assert.strictEqual(suite.code, 0, suite.stderr)
    const report = temp.write("report/plan.jsonl", suite.stdout)
    // Not named after the scenario file, so only the line's `trace` field can link it.
    const trace = temp.path("report/recorded-session.jsonl")
    const one = harness(["run", replanOnce, "--json", "--trace", trace])
    const linked = temp.write("report/one.jsonl", one.stdout)
    const { page } = viewTo(temp.path("report/report.html"), report, linked, trace)
    const table = page.files.find((file) => file.kind === "report")
    assert(table?.kind === "report", "a test report")
    expect(table.problems).toStrictEqual([])
    expect(table.columns.map((c) => [c.passed, c.failed])).toStrictEqual([
      [suite.lines.length, 0],
      [1, 0]
    ])
    const row = table.rows.find((r) => r.file === replanOnce)
    // The column of `harness test` has no trace; the line of `harness run --trace` links to the page's trace.
    expect(row?.cells.map((cell) => cell?.trace ?? null)).toStrictEqual([null, `#f3`])
  })

  it("a malformed trace still makes a page naming the line and JSON path: exit 0", SLOW, () => {
    const bad = temp.write(
      "bad/broken.jsonl",
      [
        JSON.stringify({ type: "run.started", messages: [], max_turns: 3, tools: [] }),
        "{ not json",
        JSON.stringify({ type: "call.started", turn: 1, name: "read", input: {} })
      ].join("\n")
    )
    const out = temp.path("bad/report.html")
    const { run, page } = viewTo(out, bad)
    expect(run.stderr).toBe(`wrote ${out}: 1 conversation trace; 2 problems named on the page\n`)
    expect(page.files[0]?.problems).toStrictEqual([
      { line: 2, path: "(line)", message: expect.stringMatching(/^invalid JSON: /) },
      { line: 3, path: "tool_use_id", message: "missing" }
    ])
  })
})

describe("harness view: bad input", () => {
  it("inputs that cannot be read: exit 2 naming each, nothing written", SLOW, () => {
    const good = temp.write("inputs/good.jsonl", readFileSync(salmorejoEn, "utf8"))
    const missing = temp.path("inputs/missing.jsonl")
    const folder = temp.path("inputs")
    const binary = temp.path("inputs/latin1.jsonl")
    writeFileSync(binary, Buffer.from([0x63, 0x61, 0x66, 0xe9]))
    const out = temp.path("inputs/report.html")
    const r = harness(["view", good, missing, folder, binary, "--out", out])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr.split("\n").filter((l) => l !== "")).toStrictEqual([
      `INVALID ${missing}: (file): cannot be read: NotFound: FileSystem.stat (${missing})`,
      `INVALID ${folder}: (file): cannot be read: it is a folder, not a regular file`,
      `INVALID ${binary}: (file): not UTF-8 text: byte 3 (line 1) is 0xe9, which does not start a valid sequence`
    ])
    expect(existsSync(out)).toBe(false)
  })

  it("--out naming an input or a folder: exit 2, the input untouched", SLOW, () => {
    const trace = temp.write("self/t.jsonl", "{}\n")
    const r = harness(["view", trace, "--out", trace])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      `--out ${trace}: it is an input (${trace}), which it would overwrite; nothing was run or written\n`
    )
    expect(readFileSync(trace, "utf8")).toBe("{}\n")
    const folder = harness(["view", trace, "--out", temp.path("self")])
    expect(folder.code).toBe(2)
    expect(folder.stderr).toBe(`--out ${temp.path("self")}: it is a folder; nothing was run or written\n`)
  })

  it("no file, a port out of range: exit 2 naming it", SLOW, () => {
    const none = harness(["view"])
    expect(none.code).toBe(2)
    const trace = temp.write("port/t.jsonl", "{}\n")
    const port = harness(["view", trace, "--port", "70000"])
    expect(port.code).toBe(2)
    expect(port.stderr).toBe("--port 70000: a port is a whole number from 0 (any free port) to 65535\n")
  })
})

/** Starts `harness view ARGS` (serving) and resolves with the child and the URL it prints. */
const serving = (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [join(demoDir, "src/main.ts"), "view", ...args], {
    cwd: demoDir,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
  const url = new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no URL after ${spawnTimeout} ms: ${stderr}`)), spawnTimeout)
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      const line = stdout.split("\n")[0]
      if (stdout.includes("\n") && line !== undefined) {
        clearTimeout(timer)
        done(line)
      }
    })
    void exited.then((code) => fail(new Error(`exited ${code} before printing a URL: ${stderr}`)))
  })
  return { child, url, exited, stderr: () => stderr }
}

/** A port something else is listening on, while `use` runs. */
const withTakenPort = async <A>(use: (port: number) => Promise<A>): Promise<A> => {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()))
  const address = server.address()
  try {
    return await use(typeof address === "object" && address !== null ? address.port : 0)
  } finally {
    server.close()
  }
}

describe("harness view without --out", () => {
  it("serves the page on 127.0.0.1, prints its URL, and stops on SIGTERM with exit 0", {
    timeout: 120_000
  }, async () => {
    const trace = temp.path("serve/replan-once.jsonl")
    mkdirSync(temp.path("serve"), { recursive: true })
    assert.strictEqual(harness(["run", replanOnce, "--trace", trace]).code, 0)
    const served = serving([trace])
    try {
      const url = await served.url
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
      const response = await fetch(url)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'")
      const page = modelOf(await response.text())
      expect(page.files.map((file) => file.kind)).toStrictEqual(["plan"])
      served.child.kill("SIGTERM")
      expect(await served.exited).toBe(0)
      expect(served.stderr()).toBe(`serving 1 plan session on ${url} (Ctrl-C to stop)\n`)
      // Stopped: nothing answers there any more.
      await expect(fetch(url)).rejects.toThrow()
    } finally {
      served.child.kill("SIGKILL")
    }
  })

  it("a port that is taken: exit 2 naming it", { timeout: 120_000 }, async () => {
    const trace = temp.write("taken/t.jsonl", "{}\n")
    await withTakenPort(async (port) => {
      const r = harness(["view", trace, "--port", String(port)])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(
        new RegExp(`^--port ${port}: listen EADDRINUSE: address already in use 127\\.0\\.0\\.1:${port}\\n$`)
      )
    })
  })
})
