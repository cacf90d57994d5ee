import { Message, Model } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AiError } from "effect/ai"
import { ModelPlanner, Planner, Session } from "../src/index.ts"
import { fail, ok, scriptedTool, step } from "./fixtures.ts"

/** One scripted answer: the model's text, or a failure of the model call. */
type Turn = string | Model.Failure

/** A Model answering each call with the next turn as one text block, recording what it was asked. */
const scriptedModel = (turns: ReadonlyArray<Turn>) => {
  const queue = [...turns]
  const seen: Array<Model.Request> = []
  const layer = Model.layer(
    Model.fromReply((request) =>
      Effect.suspend(() => {
        seen.push(request)
        const next = queue.shift()
        if (next === undefined) return Effect.fail(providerError("no turn left"))
        if (typeof next !== "string") return Effect.fail(next)
        return Effect.succeed(next === "" ? [] : [Message.text(next)])
      })
    )
  )
  return { layer, seen }
}

const providerError = (description: string): AiError.AiError =>
  AiError.make({
    module: "Test",
    method: "generateText",
    reason: new AiError.InternalProviderError({ description })
  })

/** Every text of a request: system contents and text blocks, in order. */
const promptText = (request: Model.Request): string =>
  request.messages
    .flatMap((message) =>
      typeof message.content === "string"
        ? [message.content]
        : message.content.flatMap((block) => (block.type === "text" ? [block.text] : []))
    )
    .join("\n")

const answer = (steps: ReadonlyArray<unknown>): string => JSON.stringify({ steps })

const Read = Tool.make("read_file", {
  description: "Reads a file from the workspace",
  parameters: Schema.Struct({ path: Schema.String.annotate({ description: "File path" }) }),
  run: ({ path }) => `contents of ${path}`
})
const Anything = scriptedTool("summarize", [ok("a summary")])
const toolset = Toolset.make(Read, Anything.tool)

const first: Planner.Request = { goal: "Summarize notes.txt", history: [], lastError: null }

const planWith = (turns: ReadonlyArray<Turn>, request: Planner.Request = first, instructions?: string) =>
  Effect.gen(function* () {
    const model = scriptedModel(turns)
    const exit = yield* ModelPlanner.make({ toolset, instructions })(request).pipe(
      Effect.provide(model.layer),
      Effect.exit
    )
    return { exit, model }
  })

/** The reason of an `InvalidPlan`, failing the test for any other error. */
const invalidReason = (error: unknown): string => {
  assert(error instanceof Planner.InvalidPlan, `expected InvalidPlan, got ${String(error)}`)
  return error.reason
}

/** The planner's failure for one scripted answer. */
const failureFor = (turn: Turn) =>
  Effect.flip(ModelPlanner.make({ toolset })(first).pipe(Effect.provide(scriptedModel([turn]).layer)))

describe("ModelPlanner.make", () => {
  it.effect("a valid answer is the plan; the model is asked through Model.respond, with no tools", () =>
    Effect.gen(function* () {
      const model = scriptedModel([
        answer([
          { id: 1, tool_name: "read_file", args: { path: "notes.txt" }, expected_outcome: "the notes" },
          { id: 2, tool_name: "summarize", args: { text: "..." }, expected_outcome: "a summary", group: "g" }
        ])
      ])
      const plan = yield* ModelPlanner.make({ toolset })(first).pipe(Effect.provide(model.layer))
      expect(plan).toStrictEqual([
        { id: 1, tool_name: "read_file", args: { path: "notes.txt" }, expected_outcome: "the notes" },
        { id: 2, tool_name: "summarize", args: { text: "..." }, expected_outcome: "a summary", group: "g" }
      ])

      expect(model.seen).toHaveLength(1)
      const options = model.seen[0]
      assert(options !== undefined)
      expect(options.toolset.tools).toStrictEqual([])
      // The prompt: the goal, every tool with its description and JSON Schema, no history, no error.
      const text = promptText(options)
      expect(text).toContain("Goal: Summarize notes.txt")
      expect(text).toContain("- read_file: Reads a file from the workspace")
      expect(text).toContain(
        'parameters: {"type":"object","properties":{"path":{"type":"string","description":"File path"}},"required":["path"],"additionalProperties":false}'
      )
      expect(text).toContain("- summarize: the scripted tool summarize")
      expect(text).toContain("(none yet)")
      expect(text).toContain("Last error: none, this is the first plan.")
      expect(options.messages.map((m) => m.role)).toStrictEqual(["system", "user"])
      expect(options.messages).toStrictEqual(ModelPlanner.prompt({ toolset }, first))
    })
  )

  it.effect("the prompt carries the history with results and errors, and the last error", () =>
    Effect.gen(function* () {
      const { exit, model } = yield* planWith([answer([])], {
        goal: "Summarize notes.txt",
        history: [
          { ...step(1, "read_file", { path: "notes.txt" }), result: "line one", error: null },
          { ...step(2, "summarize", { text: "line one" }), result: null, error: "summarizer overloaded" }
        ],
        lastError: "summarizer overloaded"
      })
      expect(exit._tag).toBe("Success")
      const options = model.seen[0]
      assert(options !== undefined)
      const text = promptText(options)
      expect(text).toContain(
        '- step 1: read_file {"path":"notes.txt"} (expected: step 1 does its job)\n  succeeded: line one'
      )
      expect(text).toContain(
        '- step 2: summarize {"text":"line one"} (expected: step 2 does its job)\n  failed: summarizer overloaded'
      )
      expect(text).toContain("Last error (the plan failed here; replan from the cursor): summarizer overloaded")
      expect(text).toContain("Write the new plan from the cursor.")
    })
  )

  it.effect("extra instructions are appended to the system message", () =>
    Effect.gen(function* () {
      const { model } = yield* planWith([answer([])], first, "Prefer fewer steps.")
      const system = model.seen[0]?.messages[0]
      assert(system !== undefined && system.role === "system")
      expect(system.content.startsWith(ModelPlanner.systemPrompt)).toBe(true)
      expect(system.content.endsWith("\n\nPrefer fewer steps.")).toBe(true)
    })
  )

  it.effect("an empty list of steps is the empty plan (nothing to offer)", () =>
    Effect.gen(function* () {
      const { exit } = yield* planWith([answer([])])
      assert(exit._tag === "Success")
      expect(exit.value).toStrictEqual([])
    })
  )

  it.effect("malformed JSON is an invalid plan with the reason", () =>
    Effect.gen(function* () {
      const error = yield* failureFor('{"steps": [')
      const reason = invalidReason(error)
      expect(reason).toBe('the answer is not a plan: Expected a valid JSON string (answer: {"steps": [)')
      assert(error instanceof Planner.InvalidPlan)
      expect(error.message).toBe(`invalid plan: ${reason}`)
    })
  )

  it.effect("prose instead of JSON is an invalid plan", () =>
    Effect.gen(function* () {
      const error = yield* failureFor("Sure! First I will read the file.")
      expect(invalidReason(error)).toContain("the answer is not a plan: Expected a valid JSON string")
    })
  )

  it.effect("an answer of the wrong shape is an invalid plan naming the field", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ['{"plan":[]}', 'the answer is not a plan: Missing key at ["steps"]'],
        [
          answer([{ id: "1", tool_name: "read_file", args: {}, expected_outcome: "x" }]),
          'the answer is not a plan: Expected number at ["steps"][0]["id"]'
        ],
        [
          answer([{ id: 1.5, tool_name: "read_file", args: {}, expected_outcome: "x" }]),
          'the answer is not a plan: Expected an integer at ["steps"][0]["id"]'
        ],
        [
          answer([{ id: 1, tool_name: "read_file", args: [], expected_outcome: "x" }]),
          'the answer is not a plan: Expected object at ["steps"][0]["args"]'
        ],
        [
          answer([{ id: 1, tool_name: "read_file", args: {} }]),
          'the answer is not a plan: Missing key at ["steps"][0]["expected_outcome"]'
        ]
      ]
      for (const [text, expected] of cases) {
        const reason = invalidReason(yield* failureFor(text))
        expect(reason.startsWith(expected), `${text} → ${reason}`).toBe(true)
      }
    })
  )

  it.effect("no text at all is an invalid plan", () =>
    Effect.gen(function* () {
      const error = yield* failureFor("")
      expect(invalidReason(error)).toBe("the answer is not a plan: No text content in response")
    })
  )

  it.effect("duplicate step ids are an invalid plan", () =>
    Effect.gen(function* () {
      const text = answer([
        { id: 1, tool_name: "read_file", args: { path: "a" }, expected_outcome: "x" },
        { id: 1, tool_name: "summarize", args: {}, expected_outcome: "y" }
      ])
      const error = yield* failureFor(text)
      expect(invalidReason(error)).toBe("step id 1 appears twice in the plan")
    })
  )

  it.effect("a tool that is not in the toolset is an invalid plan", () =>
    Effect.gen(function* () {
      const text = answer([
        { id: 1, tool_name: "read_file", args: { path: "a" }, expected_outcome: "x" },
        { id: 2, tool_name: "send_email", args: {}, expected_outcome: "y" }
      ])
      const error = yield* failureFor(text)
      expect(invalidReason(error)).toBe("step 2 uses unknown tool 'send_email' (available: 'read_file', 'summarize')")
    })
  )

  it.effect("a model failure is the planner's error, as it came, not an invalid plan", () =>
    Effect.gen(function* () {
      const rateLimited = AiError.make({
        module: "Test",
        method: "generateText",
        reason: new AiError.RateLimitError({})
      })
      const error = yield* failureFor(rateLimited)
      assert(AiError.isAiError(error), `expected an AiError, got ${String(error)}`)
      expect(error.reason._tag).toBe("RateLimitError")
      expect(ModelPlanner.isAnswerError(error)).toBe(false)
      const tagged = { _tag: "ProviderUnavailable", message: "the provider is down" }
      expect(yield* failureFor(tagged)).toBe(tagged)
    })
  )

  it.effect("a model failure about the output (InvalidOutputError) is an invalid plan: the session replans", () =>
    Effect.gen(function* () {
      const invalid = AiError.make({
        module: "LanguageModel",
        method: "generateText",
        reason: new AiError.InvalidOutputError({ description: "Expected string\n  at [0]" })
      })
      expect(invalidReason(yield* failureFor(invalid))).toBe("the answer is not a plan: Expected string at [0]")
      const structured = AiError.make({
        module: "LanguageModel",
        method: "generateObject",
        reason: new AiError.StructuredOutputError({ description: "Expected a valid JSON string", responseText: "{" })
      })
      expect(invalidReason(yield* failureFor(structured))).toBe(
        "the answer is not a plan: Expected a valid JSON string (answer: {)"
      )
    })
  )

  it.effect("a reply that is not a list of blocks is an answer with no text: an invalid plan, never a crash", () =>
    Effect.gen(function* () {
      for (const response of [{ content: "steps" }, { content: [null, 7, { type: "text", text: 1 }] }, null]) {
        const layer = Model.layer({ respond: () => Effect.succeed(response as unknown as Model.Response) })
        const error = yield* Effect.flip(ModelPlanner.make({ toolset })(first).pipe(Effect.provide(layer)))
        expect(invalidReason(error)).toBe("the answer is not a plan: No text content in response")
      }
    })
  )

  it("isAnswerError: only output decoding problems are about the answer", () => {
    const withReason = (reason: AiError.AiErrorReason) => AiError.make({ module: "M", method: "m", reason })
    expect(
      ModelPlanner.isAnswerError(withReason(new AiError.StructuredOutputError({ description: "x", responseText: "" })))
    ).toBe(true)
    expect(ModelPlanner.isAnswerError(withReason(new AiError.InvalidOutputError({ description: "x" })))).toBe(true)
    expect(ModelPlanner.isAnswerError(withReason(new AiError.InternalProviderError({ description: "x" })))).toBe(false)
  })

  it.effect("validate: a valid plan passes as it is", () =>
    Effect.gen(function* () {
      const plan = [step(1, "read_file", { path: "a" }), step(2, "summarize")]
      expect(yield* ModelPlanner.validate(toolset, plan)).toBe(plan)
      const error = yield* Effect.flip(ModelPlanner.validate(Toolset.make(), [step(1, "x")]))
      expect(error.reason).toBe("step 1 uses unknown tool 'x' (available: none)")
    })
  )
})

describe("Session.run with a ModelPlanner", () => {
  it.effect("a plan failing at a step is replanned with the error in the prompt, and completes", () =>
    Effect.gen(function* () {
      const fetch = scriptedTool("fetch", [ok("<html>page</html>")])
      const parse = scriptedTool("parse", [fail("parse error: unexpected token '<'"), ok("parsed page")])
      const save = scriptedTool("save", [ok("saved")])
      const tools = Toolset.make(fetch.tool, parse.tool, save.tool)
      const model = scriptedModel([
        answer([
          { id: 1, tool_name: "fetch", args: { url: "https://example.com" }, expected_outcome: "the page" },
          { id: 2, tool_name: "parse", args: { format: "json" }, expected_outcome: "the data" },
          { id: 3, tool_name: "save", args: { to: "db" }, expected_outcome: "saved" }
        ]),
        answer([
          { id: 2, tool_name: "parse", args: { format: "html" }, expected_outcome: "the data" },
          { id: 3, tool_name: "save", args: { to: "db" }, expected_outcome: "saved" }
        ])
      ])
      const result = yield* Session.run({
        goal: "Import https://example.com into the database",
        planner: ModelPlanner.make({ toolset: tools }),
        toolset: tools,
        maxSteps: 10,
        maxReplans: 2
      }).pipe(Effect.provide(model.layer))

      expect([result.status, result.reason, result.replans, result.steps]).toStrictEqual([
        "completed",
        "goal_met",
        1,
        4
      ])
      expect(result.revisions).toStrictEqual([{ removed: [], added: [], revised: [2] }])
      expect(result.history.map((s) => [s.id, s.tool_name, s.error ?? s.result])).toStrictEqual([
        [1, "fetch", "<html>page</html>"],
        [2, "parse", "parse error: unexpected token '<'"],
        [2, "parse", "parsed page"],
        [3, "save", "saved"]
      ])
      expect(parse.calls.map((c) => c.input)).toStrictEqual([{ format: "json" }, { format: "html" }])

      expect(model.seen).toHaveLength(2)
      const [firstPrompt, secondPrompt] = model.seen.map(promptText)
      expect(firstPrompt).toContain("Goal: Import https://example.com into the database")
      for (const name of ["fetch", "parse", "save"]) expect(firstPrompt).toContain(`- ${name}: `)
      expect(firstPrompt).toContain("Last error: none")
      expect(secondPrompt).toContain(
        "Last error (the plan failed here; replan from the cursor): parse error: unexpected token '<'"
      )
      expect(secondPrompt).toContain("succeeded: <html>page</html>")
      expect(secondPrompt).toContain("failed: parse error: unexpected token '<'")
    })
  )

  it.effect("an answer that is not a plan is replanned: the model sees why", () =>
    Effect.gen(function* () {
      const fetch = scriptedTool("fetch", [ok("page")])
      const tools = Toolset.make(fetch.tool)
      const model = scriptedModel([
        "Here is my plan: fetch the page.",
        answer([{ id: 1, tool_name: "fetch", args: {}, expected_outcome: "the page" }])
      ])
      const result = yield* Session.run({
        goal: "g",
        planner: ModelPlanner.make({ toolset: tools }),
        toolset: tools,
        maxSteps: 10,
        maxReplans: 1
      }).pipe(Effect.provide(model.layer))
      expect([result.status, result.reason, result.replans]).toStrictEqual(["completed", "goal_met", 1])
      const second = model.seen[1]
      assert(second !== undefined)
      expect(promptText(second)).toContain(
        "Last error (the plan failed here; replan from the cursor): invalid plan: the answer is not a plan: Expected a valid JSON string"
      )
    })
  )

  it.effect("a model failure fails the session's Effect with the model's failure", () =>
    Effect.gen(function* () {
      const tools = Toolset.make(scriptedTool("fetch", [ok("page")]).tool)
      const model = scriptedModel([providerError("overloaded")])
      const error = yield* Effect.flip(
        Session.run({
          goal: "g",
          planner: ModelPlanner.make({ toolset: tools }),
          toolset: tools,
          maxSteps: 10,
          maxReplans: 3
        }).pipe(Effect.provide(model.layer))
      )
      assert(AiError.isAiError(error), `expected an AiError, got ${String(error)}`)
      expect(error.reason._tag).toBe("InternalProviderError")
    })
  )

  it.effect("a model that throws, dies or answers a non-Effect fails the planner with a typed ModelDefect", () =>
    Effect.gen(function* () {
      const hostile: ReadonlyArray<readonly [string, Model.Shape["respond"]]> = [
        [
          "the model died: boom",
          () => {
            throw new Error("boom")
          }
        ],
        ["the model died: gone", () => Effect.die(new Error("gone"))],
        ["the model died: the model answered 42 instead of an Effect", () => 42 as never]
      ]
      for (const [message, respond] of hostile) {
        const error = yield* Effect.flip(
          ModelPlanner.make({ toolset })(first).pipe(Effect.provide(Model.layer({ respond })))
        )
        assert(error instanceof Model.ModelDefect, `expected a ModelDefect, got ${String(error)}`)
        expect(error.message).toBe(message)
      }
    })
  )
})
