/**
 * One `Backoff` shared by many models: a 429, 503 or 529 of one request holds the others'
 * next requests until the hold ends; other failures hold nothing; without one, each request
 * retries alone as before. Through the real providers against the loopback fake (real time,
 * small `retry-after-ms`), and `Retry.send` itself under the `TestClock`.
 */
import { Message, Trace } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { APICallError } from "@ai-sdk/provider"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { AiSdkModel, Backoff, EffectAiModel, Retry } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { failureOf, modelOf, runLoop, successOf } from "./fixtures.ts"

const timeout = 60_000

/** Setting timers and reading `Date.now` may differ by a few milliseconds; never more than this. */
const slack = 25

const opening = [Message.user("Di hola.")]

interface Sent {
  readonly who: string
  readonly at: number
}

/** A `fetch` that notes who sent each request, and when, before sending it. */
const recording =
  (who: string, log: Array<Sent>): typeof globalThis.fetch =>
  (input, init) => {
    log.push({ who, at: Date.now() })
    return globalThis.fetch(input, init)
  }

const layerOf = (
  fake: FakeProvider.Fake,
  route: FakeProvider.Route,
  fetch: typeof globalThis.fetch,
  options?: AiSdkModel.Options
) => AiSdkModel.layer(modelOf(fake, route, fetch), { maxOutputTokens: 64, retry: { base: "1 millis" }, ...options })

/** Waits (real time) until the backoff holds, failing the test if it never does. */
const untilHeld = (backoff: Backoff.Backoff) =>
  Effect.gen(function* () {
    for (let i = 0; i < 3000 && backoff.heldUntil() === 0; i++) yield* Effect.sleep(10)
    if (backoff.heldUntil() === 0) throw new Error("the backoff was never held")
    return backoff.heldUntil()
  })

/**
 * Model A is refused with `status` (asking `retry-after-ms: 300`); once its refusal holds the
 * shared backoff, model B sends its first request: neither B's request nor A's retry goes out
 * before the hold ends.
 */
const holdsTheOther = (route: FakeProvider.Route, status: number, message: string) =>
  Effect.gen(function* () {
    const fake = yield* FakeProvider.scoped({
      [route]: [
        FakeProvider.error(status, { message, retryAfterMs: 300 }),
        FakeProvider.reply([Message.text("uno")]),
        FakeProvider.reply([Message.text("dos")])
      ]
    })
    const backoff = Backoff.make()
    const sent: Array<Sent> = []
    const a = yield* Effect.forkChild(runLoop(layerOf(fake, route, recording("a", sent), { backoff }), opening))
    const until = yield* untilHeld(backoff)
    const b = yield* runLoop(layerOf(fake, route, recording("b", sent), { backoff }), opening)
    const first = yield* Fiber.join(a)
    expect(successOf(b.exit).text).not.toBe("")
    expect(successOf(first.exit).text).not.toBe("")
    expect(fake.requests).toHaveLength(3)
    expect(sent.map((s) => s.who).sort()).toEqual(["a", "a", "b"])
    const later = sent.slice(1)
    expect(later).toHaveLength(2)
    for (const s of later) expect(s.at).toBeGreaterThanOrEqual(until - slack)
    expect(first.retries).toEqual([{ type: "model.retried", turn: 1, attempt: 1, delay_ms: 300, status, message }])
    // B waited before its first attempt: that is no retry of B's.
    expect(b.retries).toEqual([])
  })

describe("Backoff shared by many models", () => {
  it.live(
    "a 429 with retry-after of one request holds the next request of another model",
    () => holdsTheOther("anthropic", 429, "Rate limited"),
    timeout
  )

  it.live("Anthropic's 529 overloaded holds too", () => holdsTheOther("anthropic", 529, "Overloaded"), timeout)

  it.live(
    "OpenAI's 503 (the engine is overloaded) holds too",
    () => holdsTheOther("openai", 503, "The engine is currently overloaded"),
    timeout
  )

  it.live(
    "a refusal holds even when its own request gives up: the provider asked for it",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [FakeProvider.error(429, { message: "slow down", retryAfter: 3600 })]
        })
        const backoff = Backoff.make()
        const out = yield* runLoop(
          layerOf(fake, "anthropic", globalThis.fetch, { backoff, retry: { budget: "10 seconds" } }),
          opening
        )
        expect(failureOf(out.exit).message).toContain("would end past the retry budget of 10000 ms")
        expect(backoff.heldUntil()).toBeGreaterThan(Date.now() + 3_000_000)
      }),
    timeout
  )

  it.live(
    "without a shared backoff each request retries alone: another model's request goes out at once",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.error(429, { message: "slow down", retryAfter: 3600 }),
            FakeProvider.reply([Message.text("hola")])
          ]
        })
        const sent: Array<Sent> = []
        const a = yield* runLoop(
          layerOf(fake, "anthropic", recording("a", sent), { retry: { budget: "10 seconds" } }),
          opening
        )
        expect(failureOf(a.exit).message).toContain("(HTTP 429) after 1 attempt: slow down")
        const b = yield* runLoop(layerOf(fake, "anthropic", recording("b", sent)), opening)
        expect(successOf(b.exit).text).toBe("hola")
        expect(sent.map((s) => s.who)).toEqual(["a", "b"])
      }),
    timeout
  )

  it.live(
    "a 500 (even with retry-after) and a 400 hold nothing: they are one request's failure",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.error(500, { message: "boom", retryAfterMs: 50 }),
            FakeProvider.reply([Message.text("hola")]),
            FakeProvider.error(400, { message: "bad request" })
          ]
        })
        const backoff = Backoff.make()
        const layer = layerOf(fake, "anthropic", globalThis.fetch, { backoff })
        const retried = yield* runLoop(layer, opening)
        expect(successOf(retried.exit).text).toBe("hola")
        expect(retried.retries).toEqual([
          { type: "model.retried", turn: 1, attempt: 1, delay_ms: 50, status: 500, message: "boom" }
        ])
        const refused = yield* runLoop(layer, opening)
        expect(failureOf(refused.exit).message).toContain("(HTTP 400)")
        expect(fake.requests).toHaveLength(3)
        expect(backoff.heldUntil()).toBe(0)
      }),
    timeout
  )

  it("a backoff that is not one made by Backoff.make is refused, naming the option", () => {
    const model = modelOf({ url: "http://127.0.0.1:9" } as FakeProvider.Fake, "anthropic")
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error("read")
        },
        getPrototypeOf: () => {
          throw new Error("prototype")
        }
      }
    )
    const fakes: ReadonlyArray<readonly [unknown, string]> = [
      [
        { heldUntil: () => 0, hold: () => Effect.void, wait: Effect.succeed(0) },
        "an object that Backoff.make did not make"
      ],
      [null, "null"],
      ["shared", 'the string "shared"'],
      [3, "number 3"],
      [hostile, "an object that Backoff.make did not make"]
    ]
    for (const [backoff, got] of fakes) {
      const options = { backoff } as unknown as AiSdkModel.Options
      expect(() => AiSdkModel.make(model, options)).toThrow(
        new TypeError(`AiSdkModel: 'backoff' must be a Backoff (from Backoff.make()), got ${got}`)
      )
      expect(() => EffectAiModel.make(model, options)).toThrow(
        new TypeError(`EffectAiModel: 'backoff' must be a Backoff (from Backoff.make()), got ${got}`)
      )
    }
    expect(Backoff.isBackoff(hostile)).toBe(false)
    expect(Backoff.isBackoff(Backoff.make())).toBe(true)
    expect(() => AiSdkModel.make(model, { backoff: Backoff.make() })).not.toThrow()
  })
})

/** An HTTP failure as the AI SDK reports one. */
const refusal = (status: number, retryAfterMs?: number) =>
  new APICallError({
    message: `refused ${status}`,
    url: "http://127.0.0.1/v1/messages",
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: retryAfterMs === undefined ? {} : { "retry-after-ms": String(retryAfterMs) },
    isRetryable: true
  })

/** Lets the forked fibers and the promises run (real timers, which the TestClock does not hold) until `done`. */
const settled = (done: () => boolean | Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    const check = () => {
      const now = done()
      return typeof now === "boolean" ? Effect.succeed(now) : now
    }
    for (let i = 0; i < 2000 && !(yield* check()); i++) {
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 1)))
    }
    if (!(yield* check())) throw new Error("the fibers never got there")
  })

describe("Backoff under the TestClock", () => {
  it.effect("holds only extend, and wait sleeps until the latest hold has passed", () =>
    Effect.gen(function* () {
      const backoff = Backoff.make()
      expect(yield* backoff.wait).toBe(0)
      yield* backoff.hold(1000)
      yield* backoff.hold(200)
      yield* backoff.hold(Number.NaN)
      yield* backoff.hold(-5)
      expect(backoff.heldUntil()).toBe(1000)
      let done = false
      const waiting = yield* Effect.forkChild(Effect.tap(backoff.wait, () => Effect.sync(() => (done = true))))
      yield* TestClock.adjust(600)
      yield* backoff.hold(1000)
      yield* TestClock.adjust(399)
      expect(done).toBe(false)
      yield* TestClock.adjust(1001)
      expect(yield* Fiber.join(waiting)).toBe(1600)
      // Two backoffs never hold each other.
      expect(Backoff.make().heldUntil()).toBe(0)
    })
  )

  it.effect("a request whose failure comes during another's hold waits for the hold, its retry traced as shared", () =>
    Effect.gen(function* () {
      const { trace, entries } = yield* Trace.memory
      const backoff = Backoff.make()
      const policy = Retry.resolve({ base: "1 millis", budget: "10 seconds" })
      let rejectB: (error: unknown) => void = () => {}
      let bTries = 0
      let aTries = 0
      const b = yield* Effect.forkChild(
        Retry.send({
          provider: "test",
          policy,
          turn: 2,
          backoff,
          send: () => {
            bTries++
            return bTries === 1
              ? new Promise<string>((_, reject) => {
                  rejectB = reject
                })
              : Promise.resolve("b")
          }
        }).pipe(Effect.provideService(Trace.Trace, trace))
      )
      yield* settled(() => bTries === 1)
      const a = yield* Effect.forkChild(
        Retry.send({
          provider: "test",
          policy,
          turn: 1,
          backoff,
          send: () => {
            aTries++
            return aTries === 1 ? Promise.reject(refusal(429, 500)) : Promise.resolve("a")
          }
        }).pipe(Effect.provideService(Trace.Trace, trace))
      )
      yield* settled(() => backoff.heldUntil() !== 0)
      expect(backoff.heldUntil()).toBe(500)
      rejectB(refusal(500))
      yield* settled(() => Effect.map(entries, (all) => all.length === 2))
      yield* TestClock.adjust(499)
      expect(aTries).toBe(1)
      expect(bTries).toBe(1)
      yield* TestClock.adjust(1)
      expect(yield* Fiber.join(a)).toBe("a")
      expect(yield* Fiber.join(b)).toBe("b")
      expect(bTries).toBe(2)
      const retries = (yield* entries).filter(Retry.retried.is)
      expect(retries).toEqual([
        { type: "model.retried", turn: 1, attempt: 1, delay_ms: 500, status: 429, message: "refused 429" },
        { type: "model.retried", turn: 2, attempt: 1, delay_ms: 500, status: 500, message: "refused 500", shared: true }
      ])
    })
  )
})
