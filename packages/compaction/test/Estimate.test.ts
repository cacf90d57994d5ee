import { describe, expect, it } from "@effect/vitest"
import { Message } from "@agent-harness/executor"
import { Estimate } from "../src/index.ts"

describe("Estimate.tokens", () => {
  it("counts ceil(UTF-8 bytes / 4) per block plus 4 per message", () => {
    expect(Estimate.tokens([Message.system("abcde")])).toBe(4 + 2)
    expect(Estimate.tokens([Message.user("abcd")])).toBe(4 + 1)
    expect(Estimate.tokens([Message.user([Message.text("a"), Message.text("b")])])).toBe(4 + 1 + 1)
    expect(Estimate.tokens([])).toBe(0)
  })

  it("counts UTF-8 bytes, not UTF-16 code units", () => {
    // "é" is 2 bytes, "€" 3, "😀" 4 (two UTF-16 code units).
    expect(Estimate.tokens([Message.user("éé")])).toBe(4 + 1)
    expect(Estimate.tokens([Message.user("€€")])).toBe(4 + 2)
    expect(Estimate.tokens([Message.user("😀😀😀")])).toBe(4 + 3)
    // A lone surrogate is sent as U+FFFD: 3 bytes.
    expect(Estimate.tokens([Message.user("\ud800")])).toBe(4 + 1)
    // Past 1M code units the bytes are counted by hand, with the same result.
    expect(Estimate.tokens([Message.user("é".repeat(600_000))])).toBe(4 + 300_000)
    expect(Estimate.tokens([Message.user(`${"😀".repeat(300_000)}\ud800`)])).toBe(4 + 300_001)
  })

  it("counts a tool_use's name and JSON input, and a tool_result's content, parts and structured content", () => {
    // "read" + {"path":"abcd"} = 4 + 15 = 19 bytes → 5 tokens.
    expect(Estimate.tokens([Message.assistant([Message.toolUse("t1", "read", { path: "abcd" })])])).toBe(4 + 5)
    expect(Estimate.tokens([Message.user([Message.toolResult("t1", "12345678", false)])])).toBe(4 + 2)
    const rich = Message.toolResult("t1", "1234", false, { structured: { a: 1 } }) // 4 + 7 bytes → 3
    expect(Estimate.tokens([Message.user([rich])])).toBe(4 + 3)
    expect(Estimate.tokens([Message.assistant([Message.reasoning("12345")])])).toBe(4 + 2)
  })

  it("never throws on hostile input: cyclic and BigInt inputs, throwing getters", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(Estimate.tokens([Message.assistant([Message.toolUse("t1", "read", cyclic)])])).toBeGreaterThanOrEqual(4)
    expect(Estimate.tokens([Message.assistant([Message.toolUse("t1", "read", 10n)])])).toBe(4 + 2)
    const hostile = {
      role: "user",
      get content(): string {
        throw new Error("boom")
      }
    } as Message.Message
    expect(Estimate.tokens([hostile])).toBe(4)
  })

  it("takes the per-message overhead as an option, and refuses a bad one naming it", () => {
    expect(Estimate.tokens([Message.user("abcd")], { messageOverhead: 0 })).toBe(1)
    expect(Estimate.estimator({ messageOverhead: 10 })(Message.user("abcd"))).toBe(11)
    expect(() => Estimate.tokens([], { messageOverhead: -1 })).toThrow(
      /messageOverhead must be a whole number ≥ 0, got -1/
    )
    expect(() => Estimate.estimator({ messageOverhead: 1.5 })).toThrow(/messageOverhead/)
  })

  it("is the sum of the per-message estimates", () => {
    const messages = [Message.system("s"), Message.user("task"), Message.assistant([Message.text("done")])]
    expect(Estimate.tokens(messages)).toBe(messages.reduce((n, m) => n + Estimate.message(m), 0))
    expect(Estimate.total(messages, Estimate.message)).toBe(Estimate.tokens(messages))
  })
})

describe("Estimate.calibrated", () => {
  const m = Message.user("x".repeat(40)) // 4 + 10 = 14 tokens raw

  it("scales by the reported / estimated ratio, rounded up", () => {
    expect(Estimate.calibrated(Estimate.message, 150, 100)(m)).toBe(21)
    expect(Estimate.ratio(150, 100)).toBe(1.5)
  })

  it("never goes below the raw approximation (one token per 4 bytes)", () => {
    expect(Estimate.calibrated(Estimate.message, 50, 100)(m)).toBe(14)
    expect(Estimate.ratio(50, 100)).toBe(1)
  })

  it("leaves the estimator as it is for a report that is missing, zero, negative or not finite", () => {
    for (const [reported, estimated] of [
      [0, 100],
      [100, 0],
      [-5, 100],
      [Number.NaN, 100],
      [100, Number.POSITIVE_INFINITY]
    ] as const) {
      expect(Estimate.calibrated(Estimate.message, reported, estimated)).toBe(Estimate.message)
    }
  })

  it("counts a nonsensical estimate as Infinity (never fitting a window)", () => {
    expect(Estimate.total([m], () => Number.NaN)).toBe(Number.POSITIVE_INFINITY)
    expect(Estimate.total([m], () => -1)).toBe(Number.POSITIVE_INFINITY)
    expect(Estimate.sanitize(3)).toBe(3)
  })
})

describe("Estimate.memoized", () => {
  it("asks the estimator once per message object, and memoizing twice changes nothing", () => {
    const asked: Array<Message.Message> = []
    const counting: Estimate.Estimator = (m) => {
      asked.push(m)
      return Estimate.message(m)
    }
    const memo = Estimate.memoized(counting)
    const a = Message.user("x".repeat(400))
    const b = Message.user("x".repeat(400))
    expect([memo(a), memo(a), memo(b), memo(a)]).toEqual([104, 104, 104, 104])
    expect(asked).toEqual([a, b])
    expect(asked[0]).toBe(a)
    expect(asked[1]).toBe(b)
    expect(Estimate.memoized(memo)).toBe(memo)
  })
})
