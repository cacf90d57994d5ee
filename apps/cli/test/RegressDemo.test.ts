/**
 * `harness demo regress` in-process: the shipped trace fixture and cases agree with the seed, and
 * the walkthrough's steps, per-case lines and exit code for each variant.
 */
import { Report, ScenarioFile, Suite, Variant } from "@agent-harness/scenario"
import { NodeServices } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestConsole } from "effect/testing"
import * as RegressDemo from "../src/walkthroughs/Regress.ts"
import { caseIds, catalogo, loadJson, regressTrace, tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("regress")
afterAll(() => temp.remove())

const load = Effect.gen(function* () {
  const trace = yield* RegressDemo.loadTrace(RegressDemo.traceFile)
  const scenario = yield* Suite.load(RegressDemo.casesFile)
  if (scenario.kind !== "response-cases") throw new Error("not response-cases")
  return { trace, scenario }
}).pipe(Effect.provide(NodeServices.layer))

describe("the shipped fixture and cases", () => {
  it("the demo points at them", () => {
    assert.strictEqual(RegressDemo.traceFile, regressTrace)
    assert.strictEqual(RegressDemo.casesFile, catalogo)
  })

  it.effect("the trace's response is reg-001's; its observed_baseline is what before makes of it", () =>
    Effect.gen(function* () {
      const { trace, scenario } = yield* load
      assert.strictEqual(trace.call.tool, "catalogo.buscar")
      assert.deepStrictEqual([trace.response.status, trace.response.error_code], ["error", "TIMEOUT"])
      assert.deepStrictEqual(scenario.file.cases[0]?.response, trace.response)
      assert.deepStrictEqual(Variant.before.parser()(trace.response), trace.observed_baseline.parsed)
      assert.include(trace.observed_baseline.note, "not an observation")
    })
  )
})

describe("RegressDemo.walkthrough", () => {
  it.effect("before: the six steps, the baseline run with reg-001 and res-001 failing", () =>
    Effect.gen(function* () {
      const { trace, scenario } = yield* load
      const { lines, verdict } = yield* RegressDemo.walkthrough(trace, scenario, Variant.before)
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(
        verdict.outcome.cases.map((c) => c.passed),
        [false, true, true, false]
      )
      assert.deepStrictEqual(
        lines.filter((l) => /^\d\. /.test(l)),
        [
          "1. Trace (catalogo.buscar, a synthetic fixture: regress/trace.json)",
          "2. Criterion, written down before running anything",
          "3. Cases, fixed before the first run (4, expected values from the contract)",
          "4. Baseline: the before variant on all 4 cases",
          "5. Change in the harness, not in a model",
          "6. Re-evaluation: the fixed variant on the same 4 cases"
        ]
      )
      const four = lines.indexOf("4. Baseline: the before variant on all 4 cases")
      const five = lines.indexOf("5. Change in the harness, not in a model")
      assert.deepStrictEqual(
        lines.slice(four + 1, five - 1),
        [...Report.cases(verdict.outcome), "2 passed, 2 failed (reserved: 0 passed, 1 failed) → exit 1"].map(
          (l) => `   ${l}`
        )
      )
      for (const line of RegressDemo.criterion) assert.include(lines, `   ${line}`)
      for (const id of Object.values(caseIds))
        assert.isTrue(
          lines.some((l) => l.startsWith(`   ${id}  `)),
          id
        )
      assert.include(lines, `   ${caseIds.res}    reserved: held out, run and reported, never used to tune the change`)
    })
  )

  it.effect("fixed: the re-evaluation run, every case passing", () =>
    Effect.gen(function* () {
      const { trace, scenario } = yield* load
      const { lines, verdict } = yield* RegressDemo.walkthrough(trace, scenario, Variant.fixed)
      assert.strictEqual(verdict.passed, true)
      const six = lines.indexOf("6. Re-evaluation: the fixed variant on the same 4 cases")
      assert.deepStrictEqual(lines.slice(six + 1, six + 6), [
        `   PASS ${caseIds.reg} regression`,
        `   PASS ${caseIds.ctl1} control`,
        `   PASS ${caseIds.ctl2} control`,
        `   reserved: PASS ${caseIds.res}`,
        "   4 passed, 0 failed (reserved: 1 passed, 0 failed) → exit 0"
      ])
      assert.include(
        lines,
        `   fixed reads the trace's response as: {"ok":false,"error_code":"TIMEOUT","message":"Tiempo de espera agotado: el catálogo no respondió en 5 segundos."}`
      )
    })
  )

  it.effect("regress prints the walkthrough and fails with exit code 1 under before, succeeds under fixed", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(RegressDemo.regress({ variant: Variant.before }))
      assert.strictEqual(error.code, 1)
      const printed = (yield* TestConsole.logLines).map(String)
      assert.include(printed, `   reserved: FAIL ${caseIds.res}`)
      yield* RegressDemo.regress({ variant: Variant.fixed })
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("RegressDemo.loadTrace", () => {
  it.effect("a malformed trace names its JSON path", () =>
    Effect.gen(function* () {
      const json = loadJson(regressTrace)
      delete (json.call as Record<string, unknown>).tool
      const file = temp.write("trace-no-tool.json", json)
      const error = yield* Effect.flip(RegressDemo.loadTrace(file))
      assert.instanceOf(error, ScenarioFile.InvalidScenario)
      assert.strictEqual(error.message, `${file}: call.tool: missing`)
      const text = temp.write("trace-bad.json", "{")
      assert.strictEqual((yield* Effect.flip(RegressDemo.loadTrace(text))).path, "(root)")
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
