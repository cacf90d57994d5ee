/**
 * The pieces of `harness agent` in-process: `--mcp` command lines split as a shell splits words
 * (and nothing more), `--model` and the keys resolved, and the terminal approver's answers kept
 * for the trace.
 */
import { PassThrough } from "node:stream"
import type { Approver } from "@agent-harness/permission"
import { Tool } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as AgentApprover from "../src/agent/Approver.ts"
import * as CommandLine from "../src/agent/CommandLine.ts"
import * as Providers from "../src/agent/Providers.ts"

const words = (text: string) => Result.getOrThrow(CommandLine.split(text))
const problem = (text: string) => {
  const split = CommandLine.split(text)
  return Result.isFailure(split) ? split.failure : `split into ${JSON.stringify(split.success)}`
}

describe("CommandLine.split", () => {
  it("splits on blanks, keeps quoted words whole, unescapes what a shell unescapes", () => {
    assert.deepStrictEqual(words("node server.js"), ["node", "server.js"])
    assert.deepStrictEqual(words("  node\t server.js \n"), ["node", "server.js"])
    assert.deepStrictEqual(words(`node 'my server.js' --root "my notes"`), [
      "node",
      "my server.js",
      "--root",
      "my notes"
    ])
    assert.deepStrictEqual(words(`a"b c"'d e'f`), ["ab cd ef"])
    assert.deepStrictEqual(words(`"say \\"hi\\" \\\\ \\$HOME \\n"`), [`say "hi" \\ $HOME \\n`])
    assert.deepStrictEqual(words(`'it''s' a\\ b ''`), ["its", "a b", ""])
    assert.deepStrictEqual(words("echo $HOME *.js | cat"), ["echo", "$HOME", "*.js", "|", "cat"])
  })

  it("an unclosed quote, a trailing backslash and nothing at all are refused, saying where", () => {
    assert.strictEqual(problem("node 'a"), "a ' opened at character 6 is never closed")
    assert.strictEqual(problem(`node "a \\"`), `a " opened at character 6 is never closed`)
    assert.strictEqual(problem("node a\\"), "it ends with a \\ that escapes nothing")
    assert.strictEqual(problem("   "), "it is empty: give a command to start")
  })
})

describe("Providers.resolve", () => {
  const env = { ANTHROPIC_API_KEY: "k1", OPENAI_API_KEY: "k2" }

  it("reads the provider, the model, the key and the base URL (the flag over the variable)", () => {
    assert.deepStrictEqual(Result.getOrThrow(Providers.resolve("anthropic:claude-sonnet-4-5", undefined, env)), {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      apiKey: "k1",
      baseUrl: undefined
    })
    const local = { ...env, OPENAI_BASE_URL: "http://localhost:11434/v1" }
    assert.strictEqual(Result.getOrThrow(Providers.resolve("openai:qwen3:8b", undefined, local)).model, "qwen3:8b")
    assert.strictEqual(
      Result.getOrThrow(Providers.resolve("openai:qwen3", undefined, local)).baseUrl,
      "http://localhost:11434/v1"
    )
    assert.strictEqual(
      Result.getOrThrow(Providers.resolve("openai-responses:gpt", "https://example.test/v1", local)).baseUrl,
      "https://example.test/v1"
    )
  })

  it("names what is wrong: the provider, the model id, the key's variable, the base URL", () => {
    const failure = (model: string, baseUrl?: string, vars: Readonly<Record<string, string>> = env) => {
      const resolved = Providers.resolve(model, baseUrl, vars)
      return Result.isFailure(resolved) ? resolved.failure : "resolved"
    }
    assert.match(failure("claude-sonnet-4-5"), /^--model "claude-sonnet-4-5": expected PROVIDER:MODEL/)
    assert.strictEqual(
      failure("anthropic:"),
      `--model "anthropic:": no model after 'anthropic:' (anthropic:<model id>)`
    )
    assert.strictEqual(
      failure("openai:gpt", undefined, {}),
      "no API key for openai: set OPENAI_API_KEY; nothing was sent"
    )
    assert.strictEqual(
      failure("anthropic:c", "localhost:8080"),
      `--base-url "localhost:8080": expected an http:// or https:// URL`
    )
    assert.strictEqual(
      failure("anthropic:c", undefined, { ...env, ANTHROPIC_BASE_URL: "ftp://x" }),
      `ANTHROPIC_BASE_URL "ftp://x": expected an http:// or https:// URL`
    )
  })

  it("gives each provider's AI SDK model", () => {
    const model = (spec: string) =>
      Providers.languageModel(
        Result.getOrThrow(Providers.resolve(spec, "http://127.0.0.1:1/v1", { ...process.env, ...env }))
      )
    assert.strictEqual(model("anthropic:c").provider, "anthropic.messages")
    assert.strictEqual(model("openai:g").provider, "openai.chat")
    assert.strictEqual(model("openai-responses:g").provider, "openai.responses")
  })
})

describe("AgentApprover", () => {
  const request = (id: string): Approver.Request => ({
    id,
    name: "append",
    input: { path: "list.txt", content: "eggs\n" },
    annotations: Tool.defaultAnnotations,
    rule: undefined,
    reason: "the tool is not read-only"
  })

  it.effect("without a terminal no one is asked: every request is denied, and nothing is recorded", () =>
    Effect.gen(function* () {
      const none = AgentApprover.make(undefined)
      const answer = yield* none.approver.ask(request("c1"))
      assert.strictEqual(answer.answer, "no")
      assert.deepStrictEqual(none.answers, [])
    })
  )

  it.effect("at a terminal each answer is kept, with its call, to be replayed as scripted approvals", () =>
    Effect.gen(function* () {
      const input = new PassThrough()
      const output = new PassThrough()
      const person = AgentApprover.make({ input, output })
      input.write("y\nn\n")
      assert.strictEqual((yield* person.approver.ask(request("c1"))).answer, "yes")
      assert.strictEqual((yield* person.approver.ask(request("c2"))).answer, "no")
      assert.deepStrictEqual(
        person.answers.map(({ reason: _, ...answer }) => answer),
        [
          { tool_use_id: "c1", tool: "append", answer: "yes" },
          { tool_use_id: "c2", tool: "append", answer: "no" }
        ]
      )
    })
  )
})
