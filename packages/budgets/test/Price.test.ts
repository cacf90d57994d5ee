import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { Price, Prices } from "../src/index.ts"

const sonnet: Price.Price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 }

describe("Price.cost", () => {
  it("charges uncached input at input", () => {
    expect(Price.cost(sonnet, { inputTokens: 1_000_000 })).toBe(3)
  })

  it("charges output at output", () => {
    expect(Price.cost(sonnet, { outputTokens: 200_000 })).toBe(3)
  })

  it("charges cache reads at cachedInput and takes them out of the uncached input", () => {
    // 1,000,000 input of which 800,000 read from cache: 200,000 × 3 + 800,000 × 0.3 = 0.6 + 0.24
    expect(Price.cost(sonnet, { inputTokens: 1_000_000, cacheReadTokens: 800_000 })).toBeCloseTo(0.84, 12)
  })

  it("charges cache writes at cacheWrite and takes them out of the uncached input", () => {
    // 400,000 written, 600,000 plain: 400,000 × 3.75 + 600,000 × 3 = 1.5 + 1.8
    expect(Price.cost(sonnet, { inputTokens: 1_000_000, cacheWriteTokens: 400_000 })).toBeCloseTo(3.3, 12)
  })

  it("charges reasoning at reasoning and the rest of the output at output", () => {
    const p: Price.Price = { input: 1, output: 10, reasoning: 20 }
    // 100,000 output of which 40,000 reasoning: 40,000 × 20 + 60,000 × 10 = 0.8 + 0.6
    expect(Price.cost(p, { outputTokens: 100_000, reasoningTokens: 40_000 })).toBeCloseTo(1.4, 12)
  })

  it("defaults cachedInput and cacheWrite to input, reasoning to output", () => {
    const plain: Price.Price = { input: 2, output: 8 }
    const counts = { inputTokens: 500_000, cacheReadTokens: 100_000, cacheWriteTokens: 100_000 }
    expect(Price.cost(plain, counts)).toBeCloseTo(1, 12)
    expect(Price.cost(plain, { outputTokens: 500_000, reasoningTokens: 250_000 })).toBeCloseTo(4, 12)
  })

  it("adds every kind at once", () => {
    const p: Price.Price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75, reasoning: 30 }
    const counts = {
      inputTokens: 10_000,
      cacheReadTokens: 6_000,
      cacheWriteTokens: 1_000,
      outputTokens: 2_000,
      reasoningTokens: 500
    }
    // 3,000 × 3 + 6,000 × 0.3 + 1,000 × 3.75 + 500 × 30 + 1,500 × 15 = 9,000 + 1,800 + 3,750 + 15,000 + 22,500
    expect(Price.cost(p, counts)).toBeCloseTo(52_050 / 1_000_000, 15)
  })

  it("counts missing counts as 0, and no tokens cost nothing", () => {
    expect(Price.cost(sonnet, {})).toBe(0)
    expect(Price.cost(sonnet, { inputTokens: undefined, outputTokens: 1_000_000 })).toBe(15)
  })

  it("never charges less than the counts say when they do not add up", () => {
    // more cached than input tokens: the uncached part is 0, the cached ones are charged in full
    expect(Price.cost(sonnet, { inputTokens: 100, cacheReadTokens: 1_000_000 })).toBeCloseTo(0.3, 12)
    // more reasoning than output tokens: reasoning charged in full, nothing else
    expect(Price.cost({ input: 1, output: 10 }, { outputTokens: 10, reasoningTokens: 100_000 })).toBeCloseTo(1, 12)
  })

  it("is dual: data-first and data-last agree", () => {
    const counts = { inputTokens: 12_345, outputTokens: 678, cacheReadTokens: 45 }
    expect(Price.cost(counts)(sonnet)).toBe(Price.cost(sonnet, counts))
    expect([sonnet].map(Price.cost(counts))).toStrictEqual([Price.cost(sonnet, counts)])
  })

  it("throws a RangeError naming a negative, NaN or infinite count", () => {
    expect(() => Price.cost(sonnet, { inputTokens: -1 })).toThrow(
      new RangeError("the count inputTokens must be a finite number of at least 0, got -1")
    )
    expect(() => Price.cost(sonnet, { outputTokens: Number.NaN })).toThrow(
      new RangeError("the count outputTokens must be a finite number of at least 0, got NaN")
    )
    expect(() => Price.cost(sonnet, { cacheReadTokens: Number.POSITIVE_INFINITY })).toThrow(
      new RangeError("the count cacheReadTokens must be a finite number of at least 0, got Infinity")
    )
    expect(() => Price.cost(sonnet, { reasoningTokens: "3" as unknown as number })).toThrow(
      new RangeError('the count reasoningTokens must be a finite number of at least 0, got "3"')
    )
    expect(() => Price.cost(sonnet, { cacheWriteTokens: -0.5 })).toThrow(RangeError)
  })

  it("throws a RangeError naming a bad rate", () => {
    expect(() => Price.cost({ input: -3, output: 15 }, { inputTokens: 1 })).toThrow(
      new RangeError("the price's input must be a finite number of at least 0, got -3")
    )
    expect(() => Price.cost({ input: 3, output: 15, cachedInput: Number.NaN }, {})).toThrow(
      new RangeError("the price's cachedInput must be a finite number of at least 0, got NaN")
    )
  })
})

describe("Price.worstCase", () => {
  it("charges input at the dearest input rate and output at the dearest output rate", () => {
    // input: max(3, 0.3, 3.75) = 3.75; output: max(15, 30) = 30
    const p: Price.Price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75, reasoning: 30 }
    expect(Price.worstCase(p, 1_000_000, 100_000)).toBeCloseTo(3.75 + 3, 9)
    expect(Price.worstCase({ input: 2, output: 8 }, 500_000, 0)).toBeCloseTo(1, 9)
    expect(Price.worstCase({ input: 2, output: 8 }, 0, 0)).toBe(0)
  })

  it("throws a RangeError naming a bad argument", () => {
    expect(() => Price.worstCase(sonnet, -1, 10)).toThrow(
      new RangeError("inputTokens must be a finite number of at least 0, got -1")
    )
    expect(() => Price.worstCase(sonnet, 10, Number.POSITIVE_INFINITY)).toThrow(
      new RangeError("outputTokens must be a finite number of at least 0, got Infinity")
    )
  })

  it("is never below the cost of 10,000 random calls within its bounds", () => {
    // mulberry32: a small seeded generator, so every run draws the same calls
    let seed = 0x2024_1202
    const random = (): number => {
      seed = (seed + 0x6d2b79f5) | 0
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
    }
    const int = (max: number): number => Math.floor(random() * (max + 1))
    const rate = (): number => (random() < 0.1 ? 0 : Math.round(random() * 100_000) / 1_000)
    const maybe = <A>(a: A): A | undefined => (random() < 0.3 ? undefined : a)
    let tight = 0
    for (let n = 0; n < 10_000; n++) {
      const price: Price.Price = {
        input: rate(),
        output: rate(),
        cachedInput: maybe(rate()),
        cacheWrite: maybe(rate()),
        reasoning: maybe(rate())
      }
      const i = int(2_000_000)
      const o = int(200_000)
      const inputTokens = int(i)
      const cacheReadTokens = int(inputTokens)
      const cacheWriteTokens = int(inputTokens - cacheReadTokens)
      const outputTokens = int(o)
      const reasoningTokens = int(outputTokens)
      const counts: Price.Counts = {
        inputTokens: maybe(inputTokens),
        outputTokens: maybe(outputTokens),
        reasoningTokens: maybe(reasoningTokens),
        cacheReadTokens: maybe(cacheReadTokens),
        cacheWriteTokens: maybe(cacheWriteTokens)
      }
      const worst = Price.worstCase(price, i, o)
      const spent = Price.cost(price, counts)
      if (!(worst >= spent)) throw new Error(`call ${n}: worstCase ${worst} < cost ${spent}`)
      // the bound is also tight: the dearest counts cost it, up to the rounding margin
      const all = { inputTokens: i, outputTokens: o }
      if (price.cachedInput === undefined && price.cacheWrite === undefined && price.reasoning === undefined) {
        expect(Price.cost(price, all)).toBeCloseTo(worst, 6)
        tight++
      }
    }
    expect(tight).toBeGreaterThan(100)
  })
})

describe("Price.parse", () => {
  it("reads every key", () => {
    expect(Price.parse("input=3,output=15,cached=0.3,cache-write=3.75,reasoning=15")).toStrictEqual(
      Result.succeed({ input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75, reasoning: 15 })
    )
  })

  it("reads input and output alone, in any order, with spaces", () => {
    expect(Price.parse(" output = 15 , input=3 ")).toStrictEqual(Result.succeed({ input: 3, output: 15 }))
    expect(Price.parse("input=0,output=.5")).toStrictEqual(Result.succeed({ input: 0, output: 0.5 }))
  })

  it("gives a Price the Schema accepts", () => {
    const parsed = Price.parse("input=1.25,output=10,cached=0.125")
    expect(Result.isSuccess(parsed)).toBe(true)
    if (Result.isSuccess(parsed)) expect(Schema.decodeSync(Price.Price)(parsed.success)).toStrictEqual(parsed.success)
  })

  const fails = (text: string, message: string) => expect(Price.parse(text)).toStrictEqual(Result.fail(message))

  it("names an unknown key", () => {
    fails(
      "input=3,output=15,cahced=0.3",
      'price: unknown key "cahced" in "cahced=0.3" (known keys: input, output, cached, cache-write, reasoning)'
    )
  })

  it("names a repeated key", () => {
    fails("input=3,output=15,input=4", 'price: input is given twice (second time "input=4")')
  })

  it("names a value that is not a number", () => {
    fails("input=three,output=15", 'price: input must be a number of USD per million tokens, got "three"')
    fails("input=3,output=", 'price: output must be a number of USD per million tokens, got ""')
    fails("input=3,output=0x10", 'price: output must be a number of USD per million tokens, got "0x10"')
    fails("input=Infinity,output=1", 'price: input must be a number of USD per million tokens, got "Infinity"')
    fails("input=1e999,output=1", 'price: input must be a number of USD per million tokens, got "1e999"')
  })

  it("names a negative value", () => {
    fails("input=3,output=15,cached=-0.3", 'price: cached must be at least 0, got "-0.3"')
  })

  it("names a missing input or output", () => {
    fails(
      "output=15",
      "price: input is required (USD per million input tokens), e.g. input=3,output=15,cached=0.3,cache-write=3.75,reasoning=15"
    )
    fails(
      "input=3,cached=0.3",
      "price: output is required (USD per million output tokens), e.g. input=3,output=15,cached=0.3,cache-write=3.75,reasoning=15"
    )
  })

  it("names an entry that is not key=value, and an empty text", () => {
    fails(
      "input=3,output",
      'price: "output" is not key=value (e.g. input=3,output=15,cached=0.3,cache-write=3.75,reasoning=15)'
    )
    fails(
      "input=3,,output=15",
      'price: "" is not key=value (e.g. input=3,output=15,cached=0.3,cache-write=3.75,reasoning=15)'
    )
    fails(
      "  ",
      "price: empty; give USD per million tokens as key=value pairs, e.g. input=3,output=15,cached=0.3,cache-write=3.75,reasoning=15"
    )
  })

  it("does not take a key from the prototype", () => {
    fails(
      "input=3,output=15,toString=1",
      'price: unknown key "toString" in "toString=1" (known keys: input, output, cached, cache-write, reasoning)'
    )
  })
})

describe("Price.Price (Schema)", () => {
  it("accepts rates ≥ 0 and refuses negative, non-finite or missing ones", () => {
    const decode = Schema.decodeUnknownResult(Price.Price)
    expect(Result.isSuccess(decode({ input: 0, output: 0 }))).toBe(true)
    expect(Result.isFailure(decode({ input: -1, output: 1 }))).toBe(true)
    expect(Result.isFailure(decode({ input: 1, output: Number.POSITIVE_INFINITY }))).toBe(true)
    expect(Result.isFailure(decode({ input: 1, output: 1, cachedInput: Number.NaN }))).toBe(true)
    expect(Result.isFailure(decode({ input: 1 }))).toBe(true)
  })
})

describe("Prices", () => {
  const entry = (model: string, input: number): Prices.Entry => ({
    provider: "anthropic",
    model,
    price: { input, output: input * 5 },
    checked: "2026-12-02",
    source: "test"
  })

  it("finds an exact model id", () => {
    expect(Prices.find("anthropic", "claude-sonnet-4-5")?.price).toStrictEqual({
      input: 3,
      output: 15,
      cachedInput: 0.3,
      cacheWrite: 3.75
    })
    expect(Prices.find("openai", "gpt-5-mini")?.price).toStrictEqual({ input: 0.25, output: 2, cachedInput: 0.025 })
  })

  it("finds a dated id by its undated one", () => {
    expect(Prices.find("anthropic", "claude-sonnet-4-5-20250929")?.model).toBe("claude-sonnet-4-5")
    expect(Prices.find("openai", "gpt-5-nano-2025-08-07")?.model).toBe("gpt-5-nano")
    const gpt4o: Prices.Entry = { ...entry("gpt-4o", 2.5), provider: "openai" }
    expect(Prices.find("openai", "gpt-4o-2024-08-06", [gpt4o])).toBe(gpt4o)
  })

  it("is undefined for an unknown model or the wrong provider", () => {
    expect(Prices.find("anthropic", "claude-nonexistent-9")).toBeUndefined()
    expect(Prices.find("openai", "claude-sonnet-4-5")).toBeUndefined()
    expect(Prices.find("anthropic", "")).toBeUndefined()
    // a date in the middle is not stripped
    expect(Prices.find("anthropic", "claude-sonnet-4-5-20250929-extra")).toBeUndefined()
  })

  it("searches overrides first, exact and dated", () => {
    const mine = entry("claude-sonnet-4-5", 1)
    expect(Prices.find("anthropic", "claude-sonnet-4-5", [mine])).toBe(mine)
    expect(Prices.find("anthropic", "claude-sonnet-4-5-20250929", [mine])).toBe(mine)
    const dated = entry("claude-sonnet-4-5-20250929", 2)
    expect(Prices.find("anthropic", "claude-sonnet-4-5-20250929", [mine, dated])).toBe(dated)
    const newModel = entry("claude-new-1", 7)
    expect(Prices.find("anthropic", "claude-new-1", [newModel])).toBe(newModel)
    expect(Prices.find("anthropic", "claude-haiku-4-5", [newModel])?.price.input).toBe(1)
  })

  it("has valid entries: a Price the Schema accepts, a provider's https URL, a real date", () => {
    expect(Prices.table.length).toBeGreaterThanOrEqual(20)
    const seen = new Set<string>()
    for (const e of Prices.table) {
      const name = `${e.provider}/${e.model}`
      expect(seen.has(name), `${name} is listed twice`).toBe(false)
      seen.add(name)
      expect(Schema.decodeSync(Price.Price)(e.price)).toStrictEqual(e.price)
      expect(e.price.output, name).toBeGreaterThan(0)
      const url = new URL(e.source)
      expect(url.protocol, name).toBe("https:")
      expect(url.hostname, name).toBe(e.provider === "anthropic" ? "platform.claude.com" : "developers.openai.com")
      expect(e.checked, name).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(new Date(`${e.checked}T00:00:00Z`).toISOString().slice(0, 10), name).toBe(e.checked)
      expect(e.model, name).not.toMatch(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/)
    }
  })

  it("has anthropic's and openai's models", () => {
    expect(Prices.table.some((e) => e.provider === "anthropic")).toBe(true)
    expect(Prices.table.some((e) => e.provider === "openai")).toBe(true)
  })

  it("says the oldest checked date", () => {
    const oldest = Prices.table.map((e) => e.checked).sort()[0]
    expect(Prices.checked).toBe(oldest)
    expect(Prices.checked).toBe("2026-12-02")
  })
})
