/**
 * `harness agent --context-window` against the loopback fake's OpenAI wire: a list dense in
 * tokens (digits and commas: about one token per byte by o200k_base, four times the
 * approximation's bytes / 4). The same run under the same window is compacted for
 * `openai:gpt-4o` (OpenAI's tokenizer counts it near the window) and left as it is for a model
 * whose encoding is not known (the approximation counts it well under).
 */
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { agent as runAgent, freshRoots, providerEnv } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 240_000 }
const temp = tempFolder("agent-tokenizer")
afterAll(() => temp.remove())
const start = fakeProviders()
/** 1,600 bytes of digits and commas on 40 lines. */
const dense = Array.from({ length: 40 }, (_, line) =>
  Array.from({ length: 20 }, (_, i) => String((line * 37 + i * 11) % 10)).join(",")
).join("\n")
const rootWith = freshRoots(temp, `${dense}\n`)

/** Five reads of list.txt, then done; each reply reports 1 input token (calibration keeps the count). */
const script = () => [
  ...Array.from({ length: 5 }, (_, i) =>
    FakeProvider.reply([Message.toolUse(`call_${i}`, "read", { path: "list.txt" })], {
      usage: { input: 1, output: 10 }
    })
  ),
  FakeProvider.reply([Message.text("done")], { usage: { input: 1, output: 5 } })
]

const run = async (model: string) => {
  const fake = await start({ openai: script() })
  const r = await runAgent({
    fake,
    model,
    args: ["--root", rootWith(), "--context-window", "5000", "--no-stream", "--max-turns", "10", "read the list"],
    env: providerEnv({ OPENAI_API_KEY: "test-key" })
  })
  assert.strictEqual(r.code, 0, r.stderr)
  assert.include(r.stdout, "stop: end")
  const sent = fake.requestsTo("openai").map((request) => JSON.stringify(request.json))
  assert.strictEqual(sent.length, 6)
  return sent
}

describe("harness agent --context-window with OpenAI's tokenizer", () => {
  it(
    "a dense list is compacted for gpt-4o, by its tokenizer's count; not for a model the approximation counts",
    SPAWNS,
    async () => {
      const tokenized = await run("openai:gpt-4o")
      assert.isTrue(
        tokenized.some((body) => body.includes("[elided by compaction: ")),
        "gpt-4o: a request with an elided result"
      )
      const approximated = await run("openai:local-model")
      assert.isFalse(
        approximated.some((body) => body.includes("[elided by compaction: ")),
        "local-model: no request elided"
      )
    }
  )
})
