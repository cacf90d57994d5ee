import { Estimate } from "@agent-harness/compaction"
import { Message } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base"
import * as o200k from "gpt-tokenizer/encoding/o200k_base"
import { Tokenizer } from "../src/index.ts"

/** gpt-tokenizer's own count of `text`, special-token strings as plain text. */
const plain = { disallowedSpecial: new Set<string>() }
const o = (text: string): number => o200k.encode(text, plain).length
const c = (text: string): number => cl100k.encode(text, plain).length
const framing = Tokenizer.perMessage

const gpt4o = Effect.map(Tokenizer.estimator("gpt-4o"), (estimate) => {
  if (estimate === undefined) throw new Error("gpt-4o has no estimator")
  return estimate
})

describe("encodingFor", () => {
  it("OpenAI's models by gpt-tokenizer's map and their families; anything else undefined", () => {
    for (const model of [
      "gpt-4o",
      "gpt-4o-mini",
      "gpt-4.1",
      "gpt-4.1-nano",
      "gpt-5",
      "gpt-5.2-codex",
      "o1",
      "o3-mini",
      "o4-mini",
      "chatgpt-4o-latest",
      "gpt-4o-2099-01-01",
      "gpt-5.9"
    ]) {
      assert.strictEqual(Tokenizer.encodingFor(model), "o200k_base", model)
    }
    for (const model of [
      "gpt-4",
      "gpt-4-turbo",
      "gpt-4-0613",
      "gpt-3.5-turbo",
      "gpt-3.5-turbo-0125",
      "gpt-4-2099-01-01"
    ]) {
      assert.strictEqual(Tokenizer.encodingFor(model), "cl100k_base", model)
    }
    for (const model of [
      "claude-sonnet-4-5",
      "claude-3-5-haiku-latest",
      "llama3",
      "",
      "gpt-oss-20b",
      "davinci",
      "o",
      "o10",
      "gpt-40"
    ]) {
      assert.strictEqual(Tokenizer.encodingFor(model), undefined, model)
    }
  })

  it.effect("a known model gets an estimator; an Anthropic or unknown model gets none", () =>
    Effect.gen(function* () {
      assert.isFunction(yield* Tokenizer.estimator("gpt-4.1-mini"))
      assert.isFunction(yield* Tokenizer.estimator("gpt-3.5-turbo"))
      assert.isUndefined(yield* Tokenizer.estimator("claude-sonnet-4-5"))
      assert.isUndefined(yield* Tokenizer.estimator("no-such-model"))
    })
  )
})

describe("counts", () => {
  it.effect("each message: framing + role + content, as gpt-tokenizer encodes them", () =>
    Effect.gen(function* () {
      const estimate = yield* gpt4o
      const sys = "You are careful. Réponds en français, s'il te plaît — 日本語も。"
      assert.strictEqual(estimate(Message.system(sys)), framing + o("system") + o(sys))
      assert.strictEqual(estimate(Message.user("hello world")), framing + o("user") + o("hello world"))
      const input = { path: "src/a.ts", lines: [1, 2, 3], note: "ünïcode" }
      const reply = Message.assistant([Message.text("Reading it."), Message.toolUse("c1", "read", input)])
      assert.strictEqual(
        estimate(reply),
        framing + o("assistant") + o("Reading it.") + o("read") + o(JSON.stringify(input))
      )
      // Each tool result is a `tool` message of its own on the wire.
      const results = Message.user([
        Message.toolResult("c1", "line one\nline two", false),
        Message.toolResult("c2", "boom", true)
      ])
      assert.strictEqual(
        estimate(results),
        framing + o("tool") + o("line one\nline two") + framing + o("tool") + o("boom")
      )
      const thought = Message.assistant([Message.reasoning("Let me think about it."), Message.text("Done.")])
      assert.strictEqual(estimate(thought), framing + o("assistant") + o("Let me think about it.") + o("Done."))
    })
  )

  it.effect("cl100k_base for GPT-4 counts with its own encoding", () =>
    Effect.gen(function* () {
      const estimate = yield* Tokenizer.forEncoding("cl100k_base")
      const text = "The quick brown fox — naïve café 日本語 🙂 jumps."
      assert.strictEqual(estimate(Message.user(text)), framing + c("user") + c(text))
      assert.notStrictEqual(c(text), o(text))
    })
  )

  it.effect("a long text is counted piece by piece, as the whole text encodes", () =>
    Effect.gen(function* () {
      const estimate = yield* gpt4o
      const words = Array.from(
        { length: 60_000 },
        (_, i) => ["the", "cat", "naïve", "日本語", "sat.\n", "🙂"][i % 6]
      ).join(" ")
      assert.strictEqual(estimate(Message.user(words)), framing + o("user") + o(words))
    })
  )
})

describe("hostile input never throws", () => {
  it.effect("huge strings, lone surrogates, special tokens, cyclic, BigInt and throwing inputs", () =>
    Effect.gen(function* () {
      const estimate = yield* gpt4o
      const huge = "a".repeat(2_000_000)
      const counted = estimate(Message.user(huge))
      assert.isTrue(Number.isSafeInteger(counted) && counted > 2_000_000 / 16, String(counted))
      const lone = `x\ud800y\udc00z${"\ud83d".repeat(2_000)}`
      assert.strictEqual(estimate(Message.user(lone)), framing + o("user") + o(lone))
      // A run with no space to cut before is cut at the piece length (never inside a pair).
      const run = Message.user("\ud83d\ude42\ud800".repeat(50_000))
      assert.isTrue(Number.isSafeInteger(estimate(run)) && estimate(run) >= 50_000)
      const special = "<|endoftext|><|im_start|>system"
      assert.strictEqual(estimate(Message.user(special)), framing + o("user") + o(special))

      const cyclic: Record<string, unknown> = { a: 1 }
      cyclic.self = cyclic
      const getter = {
        get x(): never {
          throw new Error("boom")
        }
      }
      const blocks = [
        Message.toolUse("c1", "read", cyclic),
        Message.toolUse("c2", "read", 10n),
        Message.toolUse("c3", "read", getter),
        Message.toolUse("c4", "read", Object.create(null))
      ]
      const n = estimate(Message.assistant(blocks))
      assert.isTrue(Number.isSafeInteger(n) && n > 0)

      const hostileMessage = {
        role: "assistant",
        get content(): never {
          throw new Error("no content")
        }
      } as unknown as Message.Message
      assert.strictEqual(estimate(hostileMessage), Estimate.message(hostileMessage))
      const odd = {
        role: "user",
        content: [null, 7, { type: "tool_result", content: 12 }]
      } as unknown as Message.Message
      assert.isTrue(Number.isSafeInteger(estimate(odd)))
      const notAString = { role: 42, content: { text: "x" } } as unknown as Message.Message
      assert.isTrue(Number.isSafeInteger(estimate(notAString)))
    })
  )
})
