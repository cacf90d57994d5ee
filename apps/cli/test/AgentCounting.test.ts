import { Message } from "@agent-harness/executor"
import { Tokenizer } from "@agent-harness/tokenizer"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Counting from "../src/agent/Counting.ts"

describe("harness agent --context-window: what counts the tokens", () => {
  it.effect("OpenAI's tokenizer for an OpenAI model with a known encoding; the approximation otherwise", () =>
    Effect.gen(function* () {
      const history = [Message.system("You are careful."), Message.user("Read 3 files — naïve café 日本語.")]
      for (const [provider, model] of [
        ["openai", "gpt-4o-mini"],
        ["openai-responses", "gpt-5"],
        ["openai", "gpt-4"]
      ] as const) {
        const estimate = yield* Counting.estimatorFor({ provider, model })
        const expected = yield* Tokenizer.estimator(model)
        if (estimate === undefined || expected === undefined)
          return assert.fail(`${provider}:${model} has no tokenizer`)
        for (const m of history) assert.strictEqual(estimate(m), expected(m), `${provider}:${model}`)
      }
      // Anthropic publishes no tokenizer; a model an OpenAI-compatible server names is not known to use OpenAI's encodings.
      assert.isUndefined(yield* Counting.estimatorFor({ provider: "anthropic", model: "claude-sonnet-4-5" }))
      assert.isUndefined(yield* Counting.estimatorFor({ provider: "openai", model: "llama3.1:8b" }))
    })
  )
})
