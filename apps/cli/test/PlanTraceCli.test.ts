/**
 * `harness run PLAN.json --trace FILE` records the plan session as the planner's `SessionTrace`:
 * the start line, every event in order, the result without its events; `--json` names the
 * trace. A `response-cases` scenario has nothing to record: exit 2, nothing written.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { SessionTrace } from "@agent-harness/planner"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { harness, SLOW } from "./fixtures/harness.ts"
import { catalogo, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("plan-trace")
afterAll(() => temp.remove())

const replanOnce = join(scenariosDir, "plan", "replan-once.json")
const decodeLine = Schema.decodeUnknownSync(SessionTrace.Line)

/** Every line of a session trace, decoded (each must decode). */
const linesOf = (file: string): ReadonlyArray<SessionTrace.Line> =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => decodeLine(JSON.parse(l)))

describe("harness run PLAN.json --trace", () => {
  it("writes the session: start, every event, the result; the run's verdict unchanged", SLOW, () => {
    const trace = temp.path("replan-once.jsonl")
    const r = harness(["run", replanOnce, "--trace", trace])
    assert.strictEqual(r.code, 0, r.stderr)
    expect(r.stdout).toMatch(/^PASS plan: replan once/)
    const lines = linesOf(trace)
    expect(lines[0]).toStrictEqual({
      type: "session.started",
      goal: "Publish the weekly report",
      max_steps: 10,
      max_replans: 2,
      on_failure: "replan",
      tools: ["read", "list", "search", "write", "append", "fetch_sales", "publish", "publish_draft", "notify"]
    })
    const events = lines.slice(1, -1)
    expect(events.map((l) => l.type)).toStrictEqual([
      "plan.created",
      "step.started",
      "step.succeeded",
      "step.started",
      "step.failed",
      "plan.diff",
      "plan.created",
      "step.started",
      "step.succeeded",
      "step.started",
      "step.succeeded",
      "session.finished"
    ])
    const last = lines.at(-1)
    assert(last?.type === "session.recorded", "the last line is the result")
    expect(last.result).toMatchObject({ status: "completed", reason: "goal_met", steps: 4, replans: 1 })
    expect(last.result.revisions).toStrictEqual([{ removed: [2], added: [4], revised: [] }])
    expect(last.result.history.map((step) => step.id)).toStrictEqual([1, 2, 4, 3])
  })

  it("--json names the trace in the verdict's line", SLOW, () => {
    const trace = temp.path("named.jsonl")
    const r = harness(["run", replanOnce, "--json", "--trace", trace])
    assert.strictEqual(r.code, 0, r.stderr)
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: "plan", passed: true, trace })
    const plain = harness(["run", replanOnce, "--json"])
    expect(Object.keys(JSON.parse(plain.stdout))).not.toContain("trace")
  })

  it("a response-cases scenario: exit 2 saying why, nothing written", SLOW, () => {
    const trace = temp.path("cases.jsonl")
    const r = harness(["run", catalogo, "--trace", trace])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(
      `--trace records conversations and plan sessions; ${catalogo} is a 'response-cases' scenario, which runs no model and no tools: its verdict (harness run --json) holds every case; nothing was run or written\n`
    )
    expect(existsSync(trace)).toBe(false)
  })

  it("a trace file that cannot be created: exit 2 naming it, the plan not run", SLOW, () => {
    const trace = temp.path("no/such/folder/t.jsonl")
    const r = harness(["run", replanOnce, "--trace", trace])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(`--trace ${trace}: NotFound: FileSystem.open (${trace})\n`)
  })
})
