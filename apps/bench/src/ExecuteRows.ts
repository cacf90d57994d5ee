/**
 * Rows 1 and 2: `execute` per valid call (its synchronous core; inside an already-running
 * Effect, many calls per run; `runPromise` per call) and per invalid call, against A, with the
 * schema libraries' own costs as references. Row 1a is also timed in batches of calls, so that
 * the timer drops out, against the same work done by hand and through zod (`SameWork`).
 */
import { Execute, type Outcome } from "@agent-harness/executor"
import { Toolset } from "@agent-harness/tool-schema"
import { Effect, Result, Schema, SchemaIssue, SchemaParser } from "effect"
import { SchemaJITCompiler } from "effect/schema"
import { z } from "zod"
import { baseline, type Call, check, invalid, missingPathText, toolset, valid } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as SameWork from "./SameWork.ts"
import * as Table from "./Table.ts"

/** Calls per run of the "inside a running Effect" cases. */
const perRun = 1000

/** Calls per sample of the batched cases: the timer's own cost (about 40 ns) divided by it. */
const perBatch = 1000

/** Where the last answers of a batch are kept, so that the batch's work stays observable. */
let kept: ReadonlyArray<unknown> = []

/**
 * A ring for one batch's answers: every answer is stored, so that no call's work (its answer's
 * allocation included) can be dropped as dead code. It is new, so that the store costs no write
 * barrier into an old object (about 3 ns per call otherwise, the same for every case, which would
 * only pull the ratios towards 1).
 */
const ringOf = (): Array<unknown> => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

// The batched cases: `perBatch` calls in one sample. Each has its own loop calling its function
// from one call site, as the loop calls `executeSync`: one loop shared by all would make that
// call megamorphic, an indirect call added to every case.

const executeBatch = (): void => {
  const ring = ringOf()
  for (let i = 0; i < perBatch; i++) ring[i & 15] = Execute.executeSync(toolset, valid)
  kept = ring
}

const sameWorkBatch = (): void => {
  const ring = ringOf()
  for (let i = 0; i < perBatch; i++) ring[i & 15] = SameWork.sameWork(valid)
  kept = ring
}

const sameWorkProbedBatch = (): void => {
  const ring = ringOf()
  for (let i = 0; i < perBatch; i++) ring[i & 15] = SameWork.sameWorkProbed(valid)
  kept = ring
}

const zodBatch = (): void => {
  const ring = ringOf()
  for (let i = 0; i < perBatch; i++) ring[i & 15] = SameWork.zodStrict(valid)
  kept = ring
}

const zodAloneBatch = (): void => {
  const ring = ringOf()
  for (let i = 0; i < perBatch; i++) ring[i & 15] = SameWork.zodStrictAlone(valid)
  kept = ring
}

/** `executeSync` as the fixture checks call it, beside the baselines: the fixture's tool answers a plain value. */
const executeSync = (call: Call): unknown => Execute.executeSync(toolset, call)

const inEffect = (call: Call) =>
  Effect.gen(function* () {
    let last: Outcome.Outcome | undefined
    for (let i = 0; i < perRun; i++) last = yield* Execute.execute(toolset, call)
    return last
  })

/** What `Loop.run` does per call inside its running Effect: the synchronous core, the harness read once per run. */
const asTheLoop = (call: Call) =>
  Effect.gen(function* () {
    const harness = yield* Execute.harness
    let last: Outcome.Outcome | undefined
    for (let i = 0; i < perRun; i++) {
      const now = Execute.executeSync(toolset, call, harness)
      last = Effect.isEffect(now) ? yield* now : now
    }
    return last
  })

const isOutcome = (u: unknown): u is Outcome.Outcome => typeof u === "object" && u !== null && "_tag" in u

// References: what the schema libraries cost by themselves for the same check.
const Parameters = Schema.Struct({ path: Schema.String, limit: Schema.Finite })
const strict = { errors: "first", onExcessProperty: "error" } as const
const effectSchemaDecode = SchemaParser.decodeUnknownResult(Parameters)
/** The same struct through Schema's JIT compiler, decoded synchronously: default options, and strict. */
const Compiled = Schema.Struct({ path: Schema.String, limit: Schema.Finite })
SchemaJITCompiler.enable(Compiled.ast)
const compiledDecode = SchemaParser.decodeUnknownSync(Compiled)
const formatIssue = SchemaIssue.makeFormatterDefault()
const zodParameters = z.strictObject({ path: z.string(), limit: z.number() })
const run = (input: { readonly path: string }) => `contents of ${input.path}`
/** The decoder `Toolset` compiled for the fixture's parameters: the decoding inside 1a. */
const compiled = Toolset.entry(toolset, "read")?.fast?.compiled
const input = valid.input as { readonly path: string; readonly limit: number }
/**
 * How the compiled decoder finds unexpected symbol keys: `Object.assign` onto a sealed object
 * holding only the declared keys (no prototype, fast properties) throws at any other key; the
 * decoder clears it at once.
 */
const symbolProbe: { path: unknown; limit: unknown } = Object.seal(
  Object.setPrototypeOf({ path: undefined, limit: undefined }, null)
)
const probeSymbols = (value: object): void => {
  try {
    Object.assign(symbolProbe, value)
  } finally {
    symbolProbe.path = undefined
    symbolProbe.limit = undefined
  }
}

export interface Results {
  /** A, ns per call. */
  readonly a: number
  readonly floor: number
  readonly rows: ReadonlyArray<Table.Row>
}

export const measure = async (settings: Measure.Settings): Promise<Results> => {
  const validProgram = inEffect(valid)
  const invalidProgram = inEffect(invalid)
  const loopProgram = asTheLoop(valid)

  // The fixtures do what the rows say.
  const syncValid = Execute.executeSync(toolset, valid)
  check(isOutcome(syncValid) && syncValid._tag === "Succeeded", "the valid call succeeds synchronously")
  const syncInvalid = Execute.executeSync(toolset, invalid)
  check(isOutcome(syncInvalid) && syncInvalid.content === missingPathText, "the invalid call names the missing field")
  check(Effect.runSync(validProgram)?._tag === "Succeeded", "execute inside an Effect succeeds")
  check(Effect.runSync(loopProgram)?._tag === "Succeeded", "the loop's path succeeds")
  check(Effect.runSync(invalidProgram)?.content === missingPathText, "execute inside an Effect refuses")
  check(baseline(valid)._tag === "Succeeded" && baseline(invalid).content === missingPathText, "A answers both")
  check(run(compiledDecode(valid.input, strict)) === "contents of notes/todo.txt", "the compiled decoder decodes")
  // 1a decodes through tool-schema's compiled decoder (code generation is allowed here).
  check(compiled !== undefined, "the toolset compiled a decoder for the fixture")
  const decoded = compiled?.(input)
  check(decoded !== undefined && run(decoded as typeof input) === "contents of notes/todo.txt", "it decodes")
  check(compiled?.({ ...input, [Symbol("extra")]: 1 }) === undefined, "it refuses an unexpected symbol key")
  probeSymbols(input)
  check(
    Result.isFailure(Result.try(() => probeSymbols({ ...input, [Symbol("extra")]: 1 }))),
    "the probe throws at an unexpected symbol key"
  )
  check(symbolProbe.path === undefined, "the probe keeps nothing")
  // Row 1a in batches: the harness and the same-work baselines answer the valid call with the
  // tool's text, and refuse the same calls (zod's strict object alone lets a symbol key through).
  const text = "contents of notes/todo.txt"
  const refusedCalls: ReadonlyArray<readonly [string, Call]> = [
    ["an extra key", { ...valid, input: { ...input, extra: 1 } }],
    ["an extra symbol key", { ...valid, input: { ...input, [Symbol("extra")]: 1 } }],
    ["a field of the wrong type", { ...valid, input: { ...input, limit: "4096" } }],
    ["an infinite limit", { ...valid, input: { ...input, limit: Number.POSITIVE_INFINITY } }],
    ["a missing field", invalid],
    ["an array", { ...valid, input: [input] }],
    [
      "a throwing getter",
      {
        ...valid,
        input: Object.defineProperty({ limit: 4096 }, "path", {
          enumerable: true,
          get: () => {
            throw new Error("getter boom")
          }
        })
      }
    ]
  ]
  const answerOf = (
    f: (call: Call) => unknown,
    call: Call
  ): { readonly _tag?: unknown; readonly content?: unknown } => {
    const out = f(call)
    return typeof out === "object" && out !== null ? out : {}
  }
  const batched: ReadonlyArray<readonly [string, (call: Call) => unknown]> = [
    ["1a", executeSync],
    ["the same work by hand", SameWork.sameWork],
    ["the same work by hand, probed", SameWork.sameWorkProbed],
    ["zod strict + the symbol check", SameWork.zodStrict]
  ]
  for (const [label, f] of batched) {
    const ok = answerOf(f, valid)
    check(ok._tag === "Succeeded" && ok.content === text, `${label}: the valid call succeeds with the tool's text`)
    for (const [what, call] of refusedCalls) {
      check(answerOf(f, call)._tag === "NotExecuted", `${label}: ${what} is refused`)
    }
  }
  check(
    SameWork.zodStrictAlone(valid).content === text &&
      SameWork.zodStrictAlone(refusedCalls[0]?.[1] ?? valid)._tag === "NotExecuted" &&
      SameWork.zodStrictAlone(refusedCalls[1]?.[1] ?? valid)._tag === "Succeeded",
    "zod's strict object alone refuses an extra key and lets an extra symbol key through"
  )

  const results = await Measure.run(
    [
      { name: "floor", fn: () => undefined },
      { name: "A", fn: () => baseline(valid) },
      { name: "1a", fn: () => Execute.executeSync(toolset, valid) },
      { name: "1b.loop", fn: () => Effect.runSync(loopProgram), per: perRun },
      { name: "1b", fn: () => Effect.runSync(validProgram), per: perRun },
      { name: "1c", fn: () => Effect.runPromise(Execute.execute(toolset, valid)) },
      { name: "2a", fn: () => Execute.executeSync(toolset, invalid) },
      { name: "2b", fn: () => Effect.runSync(invalidProgram), per: perRun },
      { name: "1a.batch", fn: executeBatch, per: perBatch },
      { name: "same.batch", fn: sameWorkBatch, per: perBatch },
      { name: "same.probed.batch", fn: sameWorkProbedBatch, per: perBatch },
      { name: "zod.batch", fn: zodBatch, per: perBatch },
      { name: "zod.alone.batch", fn: zodAloneBatch, per: perBatch },
      {
        name: "ref.effect",
        fn: () => {
          const decoded = effectSchemaDecode(valid.input, strict)
          return Result.isSuccess(decoded) ? run(decoded.success) : undefined
        }
      },
      { name: "ref.jit", fn: () => run(compiledDecode(valid.input)) },
      { name: "ref.jit.strict", fn: () => run(compiledDecode(valid.input, strict)) },
      {
        name: "ref.zod",
        fn: () => {
          const parsed = zodParameters.safeParse(valid.input)
          return parsed.success ? run(parsed.data) : undefined
        }
      },
      {
        name: "ref.compiled",
        fn: () => {
          const out = compiled?.(input)
          return out === undefined ? undefined : run(out as typeof input)
        }
      },
      // What refusing enumerable symbol keys costs by itself (the strict decode counts them as
      // unexpected), done as the compiled decoder does it: V8 has no cheaper way.
      {
        name: "ref.symbols",
        fn: () => {
          probeSymbols(input)
          return run(input)
        }
      },
      {
        name: "ref.effect.invalid",
        fn: () => {
          const decoded = effectSchemaDecode(invalid.input, strict)
          return Result.isFailure(decoded) ? formatIssue(decoded.failure) : undefined
        }
      },
      {
        name: "ref.zod.invalid",
        fn: () => {
          const parsed = zodParameters.safeParse(invalid.input)
          return parsed.success ? undefined : z.prettifyError(parsed.error)
        }
      }
    ],
    settings
  )
  check(kept.length === 16, "the batches kept their answers")
  const a = Measure.get(results, "A")
  const floor = Measure.get(results, "floor")
  const row = (id: string, name: string, label: string, atMost?: number) =>
    Table.perCall(id, label, Measure.get(results, name), a, atMost)
  /** A batched case: ns per call, not compared with A (timed one call per sample). */
  const batchRow = (id: string, name: string, label: string): Table.Row => ({
    id,
    label,
    value: Table.ns(Measure.get(results, name))
  })
  /** The batched 1a over a batched baseline, with its target when it has one. */
  const ratioRow = (label: string, name: string, target?: { readonly atMost: number; readonly text: string }) => {
    const ratio = Measure.get(results, "1a.batch") / Measure.get(results, name)
    return {
      id: target === undefined ? "ref" : "1a",
      label,
      value: `×${Table.times(ratio)}`,
      target: target === undefined ? undefined : `≤ ${target.atMost} × ${target.text}`,
      met: target === undefined ? undefined : ratio <= target.atMost
    }
  }
  return {
    a,
    floor,
    rows: [
      {
        id: "A",
        label: "A: hand-written `typeof` check + `try`/`catch` + result object, one call per sample",
        value: Table.ns(a),
        ratio: 1
      },
      row("", "floor", "(the timer's own cost: an empty function, timed the same way)"),
      row(
        "1a",
        "1a",
        "`execute` per valid call: its synchronous core (`Execute.executeSync`), one call per sample (the timer included; no target: the timer is most of this figure, so 1a's targets are the batched ratios below)"
      ),
      row(
        "1b",
        "1b.loop",
        `per valid call inside a running Effect, the loop's path: \`Execute.executeSync\` with the fiber's harness read once (${perRun} calls per run)`,
        10
      ),
      row(
        "1b",
        "1b",
        `\`yield* Execute.execute(…)\` per valid call inside a running Effect (${perRun} calls per run)`,
        10
      ),
      row("1c", "1c", "`execute` per valid call, `Effect.runPromise` per call"),
      row("2a", "2a", "`execute` per invalid call (missing field) to the catalogue message: synchronous core", 15),
      row("2b", "2b", `\`execute\` per invalid call inside a running Effect (${perRun} calls per run)`, 15),
      row(
        "ref",
        "ref.effect",
        "reference: Effect Schema `decodeUnknownResult` with the strict options (as `Toolset` used it) + call"
      ),
      row(
        "ref",
        "ref.jit",
        "reference: Effect Schema JIT `decodeUnknownSync`, default options (extra keys dropped) + call"
      ),
      row("ref", "ref.jit.strict", 'reference: the same with `onExcessProperty: "error"` (extra keys refused) + call'),
      row("ref", "ref.zod", "reference: zod 4 `safeParse` (strict object) + call"),
      row(
        "ref",
        "ref.compiled",
        "reference: tool-schema's compiled decoder for the parameters (the decoding inside 1a) + call"
      ),
      row(
        "ref",
        "ref.symbols",
        "reference: that decoder's check of unexpected symbol keys alone (`Object.assign` onto a sealed probe of the declared keys, cleared) + call"
      ),
      row("ref", "ref.effect.invalid", "reference: invalid call to Effect Schema's formatted message"),
      row("ref", "ref.zod.invalid", "reference: invalid call to zod's `prettifyError`"),
      batchRow(
        "1a",
        "1a.batch",
        `\`execute\` per valid call, its synchronous core (\`Execute.executeSync\`), in batches of ${perBatch} calls per sample (the timer drops out)`
      ),
      batchRow(
        "ref",
        "same.batch",
        "the same work by hand, same batches: the tool found by name, each field read once and its type checked, unexpected keys refused (`for…in`, then `Object.getOwnPropertySymbols` for symbol keys), the tool called in `try`/`catch`, the same result object"
      ),
      batchRow(
        "ref",
        "zod.batch",
        "zod 4 `z.strictObject(…).safeParse` + the symbol-key check it lacks (as by hand) + the same call and result object, same batches"
      ),
      batchRow(
        "ref",
        "same.probed.batch",
        "reference: the same work by hand with symbol keys found as the compiled decoder finds them (`Object.assign` onto a sealed probe, cleared), same batches"
      ),
      batchRow(
        "ref",
        "zod.alone.batch",
        "reference: zod 4 strict `safeParse` + the same call and result object, without that check (an extra symbol key goes through), same batches"
      ),
      ratioRow("1a in batches ÷ the same work by hand", "same.batch", { atMost: 1.5, text: "same-work" }),
      ratioRow("1a in batches ÷ zod strict + call", "zod.batch", { atMost: 0.5, text: "zod strict + call" }),
      ratioRow("reference: 1a in batches ÷ the same work by hand with the probe", "same.probed.batch"),
      ratioRow("reference: 1a in batches ÷ zod strict + call without the symbol check", "zod.alone.batch")
    ]
  }
}
