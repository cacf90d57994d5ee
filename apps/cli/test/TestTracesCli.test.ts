/**
 * `harness test --traces FOLDER` records every conversation and plan session it runs, one JSON
 * Lines file per scenario, and each `--json` line names its trace, so `harness view` links every
 * row of the report to its run. The verdicts are the same as without it; a `response-cases`
 * scenario has nothing to record and its line names none.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Trace } from "@agent-harness/executor"
import { SessionTrace } from "@agent-harness/planner"
import type { Model } from "@agent-harness/viewer"
import { NodePath } from "@effect/platform-node"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Effect, Path, Schema } from "effect"
import { traceNames } from "../src/engine/Local.ts"
import { harness, SLOW } from "./fixtures/harness.ts"
import { catalogo, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("test-traces")
afterAll(() => temp.remove())

type Line = { readonly [key: string]: unknown }
const linesOf = (text: string): ReadonlyArray<Line> =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Line)

const decodeConversation = Schema.decodeUnknownSync(Trace.Event)
const decodeSession = Schema.decodeUnknownSync(SessionTrace.Line)

const paths = [join(scenariosDir, "en"), join(scenariosDir, "es"), join(scenariosDir, "plan"), catalogo]

describe("harness test --traces", () => {
  it("records each conversation and plan session, and each --json line names its trace", { timeout: 180_000 }, () => {
    const folder = temp.path("traces")
    const traced = harness(["test", ...paths, "--json", "--traces", folder])
    const plain = harness(["test", ...paths, "--json"])
    expect(traced.code).toBe(plain.code)
    const lines = linesOf(traced.stdout)
    // The same verdicts, in the same order, with or without traces.
    expect(lines.map(({ trace: _trace, ...rest }) => rest)).toStrictEqual(linesOf(plain.stdout))
    for (const line of lines) {
      if (line.kind === "response-cases") {
        expect(line.trace).toBeUndefined()
        continue
      }
      assert(typeof line.trace === "string", `${String(line.file)} names its trace`)
      const decode = line.kind === "plan" ? decodeSession : decodeConversation
      const events = linesOf(readFileSync(line.trace, "utf8")).map((event) => decode(event))
      expect(events.length).toBeGreaterThan(2)
    }
    const byFile = new Map(lines.map((line) => [line.file, line.trace]))
    expect(byFile.get(join(scenariosDir, "en", "salmorejo.json"))).toBe(join(folder, "en-salmorejo.jsonl"))
    expect(byFile.get(join(scenariosDir, "es", "salmorejo.json"))).toBe(join(folder, "es-salmorejo.jsonl"))
    expect(byFile.get(join(scenariosDir, "plan", "replan-once.json"))).toBe(join(folder, "plan-replan-once.jsonl"))
    expect(byFile.get(catalogo)).toBeUndefined()
  })

  it("harness view of the report and its traces links every row to its run", { timeout: 180_000 }, () => {
    const folder = temp.path("linked")
    const run = harness(["test", join(scenariosDir, "plan"), "--json", "--traces", folder])
    assert.strictEqual(run.code, 0, run.stderr)
    const report = temp.write("linked-report.jsonl", run.stdout)
    const traces = linesOf(run.stdout).map((line) => String(line.trace))
    const out = temp.path("linked.html")
    const view = harness(["view", report, ...traces, "--out", out])
    assert.strictEqual(view.code, 0, view.stderr)
    const html = readFileSync(out, "utf8")
    const open = '<script id="viewer-data" type="application/json">'
    const start = html.indexOf(open) + open.length
    const page = JSON.parse(html.slice(start, html.indexOf("</script>", start))) as Model.Page
    const table = page.files[0]
    assert(table?.kind === "report", "the report comes first")
    // Each row links to its trace's section of the page (`#f2`, `#f3`, … in the order given).
    const traceOf = new Map(linesOf(run.stdout).map((line) => [line.file, String(line.trace)]))
    expect(table.rows.length).toBe(traces.length)
    for (const row of table.rows) {
      expect(row.cells[0]?.trace).toBe(`#f${traces.indexOf(traceOf.get(row.file) ?? "") + 2}`)
    }
  })

  it("a --traces path that is a file: exit 2 before anything runs", SLOW, () => {
    const file = temp.write("not-a-folder", "x")
    const r = harness(["test", join(scenariosDir, "plan"), "--traces", file])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(`--traces ${file}: it is a regular file, not a folder; nothing was run\n`)
    expect(readFileSync(file, "utf8")).toBe("x")
  })
})

describe("traceNames", () => {
  const names = (files: ReadonlyArray<string>) =>
    Effect.runSync(
      Effect.map(Effect.service(Path.Path), (path) => [...traceNames("out", files, path).values()]).pipe(
        Effect.provide(NodePath.layer)
      )
    )

  it("each file's path from the files' common folder, `/` as `-`; a name taken twice numbered", () => {
    expect(names(["s/en/a.json", "s/es/a.json", "s/plan/b.json"])).toStrictEqual([
      "out/en-a.jsonl",
      "out/es-a.jsonl",
      "out/plan-b.jsonl"
    ])
    expect(names(["s/a-b/c.json", "s/a/b-c.json"])).toStrictEqual(["out/a-b-c.jsonl", "out/a-b-c-2.jsonl"])
    expect(names(["only/one.json"])).toStrictEqual(["out/one.jsonl"])
    expect(existsSync("out")).toBe(false)
  })
})
