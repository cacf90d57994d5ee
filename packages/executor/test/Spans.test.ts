import { Spend } from "@agent-harness/budgets"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Layer, Option, Schema, Stream, Tracer } from "effect"
import { Execute, Loop, Message, Model, Outcome, Spans, Trace } from "../src/index.ts"
import { scripted } from "./scripted.ts"

const { text, toolUse } = Message
const A = Spans.Attribute

/** A tracer that keeps every span it opens (Effect's `NativeSpan`), as an exporter would get them. */
const capture = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const byName = (name: string) => spans.filter((span) => span.name === name)
  const one = (name: string) => {
    const found = byName(name)
    expect(found.map((span) => span.name)).toEqual([name])
    return found[0] as Tracer.NativeSpan
  }
  const parentOf = (span: Tracer.NativeSpan) => Option.getOrUndefined(span.parent)?.spanId
  return { spans, tracer, byName, one, parentOf }
}

class Missing extends Data.TaggedError("Missing")<{ readonly message: string }> {}

/** Where the tool saw itself: the name of the span it ran in, or `none`. */
const seen: Array<string> = []
const Read = Tool.make("read", {
  description: "Reads a file",
  parameters: Schema.Struct({ path: Schema.String }),
  run: ({ path }) =>
    Effect.gen(function* () {
      const span = yield* Effect.option(Effect.currentSpan)
      seen.push(Option.isSome(span) ? span.value.name : "none")
      if (path === "missing.txt") return yield* new Missing({ message: `no file ${path}` })
      return `contents of ${path}`
    })
})
const toolset = Toolset.make(Read)
const opening = [Message.user("Read a.txt, missing.txt and a call with no path.")]

const conversation = () =>
  scripted([
    [
      text("Reading."),
      toolUse("c1", "read", { path: "a.txt" }),
      toolUse("c2", "read", { path: "missing.txt" }),
      toolUse("c3", "read", { file: "b.txt" })
    ],
    [text("Done.")]
  ])

/** A model that says who it is and what it used. */
const named = (steps: ReturnType<typeof conversation>) =>
  Layer.effect(
    Model.Model,
    Effect.map(Effect.service(Model.Model), (inner) => ({
      ...inner,
      provider: "anthropic",
      model: "claude-test-1",
      respond: (request: Model.Request) =>
        Effect.map(inner.respond(request), (response) => ({
          ...response,
          model: "claude-test-1-20261201",
          usage: { inputTokens: 100, outputTokens: 10 },
          finishReason: response.content.some((block) => block.type === "tool_use") ? "tool-calls" : "stop"
        }))
    }))
  ).pipe(Layer.provide(steps.layer))

describe("Spans: the loop's spans on Effect's tracer", () => {
  it.effect("with Effect's default tracer no span is opened (a run without telemetry pays nothing)", () =>
    Effect.gen(function* () {
      seen.length = 0
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(conversation().layer))
      expect(result.stop).toBe("end")
      expect(seen).toEqual(["none", "none"])
    })
  )

  it.effect("a conversation: invoke_agent over chat and execute_tool spans, GenAI attributes, error.type", () =>
    Effect.gen(function* () {
      seen.length = 0
      const traced = capture()
      const result = yield* Loop.run({ toolset, messages: opening, maxOutputTokens: 512 }).pipe(
        Effect.provide(named(conversation())),
        Effect.withTracer(traced.tracer)
      )
      expect(result.stop).toBe("end")
      const agent = traced.one("invoke_agent")
      expect(Option.isNone(agent.parent)).toBe(true)
      expect(Object.fromEntries(agent.attributes)).toEqual({
        [A.operationName]: "invoke_agent",
        [A.providerName]: "anthropic",
        [A.requestModel]: "claude-test-1",
        [A.stopReason]: "end",
        [A.turns]: 2,
        [A.inputTokens]: 200,
        [A.outputTokens]: 20
      })
      const chats = traced.byName("chat claude-test-1")
      expect(chats).toHaveLength(2)
      for (const [index, chat] of chats.entries()) {
        expect(traced.parentOf(chat)).toBe(agent.spanId)
        expect(chat.kind).toBe("client")
        expect(Object.fromEntries(chat.attributes)).toEqual({
          [A.operationName]: "chat",
          [A.providerName]: "anthropic",
          [A.requestModel]: "claude-test-1",
          [A.requestMaxTokens]: 512,
          [A.turn]: index + 1,
          [A.responseModel]: "claude-test-1-20261201",
          [A.inputTokens]: 100,
          [A.outputTokens]: 10,
          [A.finishReasons]: [index === 0 ? "tool-calls" : "stop"]
        })
      }
      const tools = traced.byName("execute_tool read")
      expect(tools.map((span) => span.attributes.get(A.toolCallId))).toEqual(["c1", "c2", "c3"])
      for (const span of tools) {
        expect(traced.parentOf(span)).toBe(agent.spanId)
        expect(span.attributes.get(A.operationName)).toBe("execute_tool")
        expect(span.attributes.get(A.toolName)).toBe("read")
        expect(span.attributes.get(A.toolType)).toBe("function")
        // Content is off by default: no arguments, no results, no messages anywhere.
        expect(span.attributes.has(A.toolArguments)).toBe(false)
        expect(span.attributes.has(A.toolResult)).toBe(false)
      }
      expect(chats.some((span) => span.attributes.has(A.inputMessages) || span.attributes.has(A.outputMessages))).toBe(
        false
      )
      expect(tools.map((span) => span.attributes.get(A.errorType))).toEqual([undefined, "tool_error", "not_executed"])
      expect(tools.map((span) => span.status._tag === "Ended" && span.status.exit._tag)).toEqual([
        "Success",
        "Failure",
        "Failure"
      ])
      // The tool ran inside its own span (c3 never ran: its arguments failed the schema).
      expect(seen).toEqual(["execute_tool read", "execute_tool read"])
    })
  )

  it.effect("content is opt-in: Spans.Content puts the messages, arguments and results on the spans", () =>
    Effect.gen(function* () {
      const traced = capture()
      yield* Loop.run({ toolset, messages: opening }).pipe(
        Effect.provide(named(conversation())),
        Effect.withTracer(traced.tracer),
        Effect.provideService(Spans.Content, true)
      )
      const [first] = traced.byName("chat claude-test-1")
      expect(JSON.parse(String(first?.attributes.get(A.inputMessages)))).toEqual(opening)
      expect(JSON.parse(String(first?.attributes.get(A.outputMessages)))[1]).toMatchObject({ id: "c1", name: "read" })
      const [c1, c2] = traced.byName("execute_tool read")
      expect(JSON.parse(String(c1?.attributes.get(A.toolArguments)))).toEqual({ path: "a.txt" })
      expect(c1?.attributes.get(A.toolResult)).toBe("contents of a.txt")
      expect(c2?.attributes.get(A.toolResult)).toContain("no file missing.txt")
    })
  )

  it.effect("a failing model call: its chat span fails with error.type, and so does the run", () =>
    Effect.gen(function* () {
      const traced = capture()
      const failed = yield* Loop.run({ toolset, messages: opening }).pipe(
        Effect.provide(scripted([{ fail: { _tag: "ProviderDown", message: "503" } }]).layer),
        Effect.withTracer(traced.tracer),
        Effect.flip
      )
      expect(failed._tag).toBe("ModelError")
      const chat = traced.one("chat")
      expect(chat.attributes.get(A.errorType)).toBe("ProviderDown")
      expect(chat.status._tag === "Ended" && chat.status.exit._tag).toBe("Failure")
      expect(traced.one("invoke_agent").status._tag).toBe("Ended")
    })
  )

  it.effect(
    "trace events inside a call are events of its span; a denied call says denied; tracing disabled opens none",
    () =>
      Effect.gen(function* () {
        const traced = capture()
        // A gate as middleware: records its decision on the trace, denies missing.txt.
        const gate: Execute.Middleware = (call, _tool, run) =>
          Effect.gen(function* () {
            const denied = (call.input as { readonly path?: string }).path === "missing.txt"
            yield* Trace.record({
              type: "permission.decided",
              tool_use_id: call.id,
              name: call.name,
              decision: denied ? "deny" : "allow",
              allowed: !denied
            })
            if (!denied) return yield* run
            return Outcome.denied(call, "the policy denies it")
          })
        yield* Loop.run({ toolset, messages: opening }).pipe(
          Effect.provide(conversation().layer),
          Execute.withMiddleware(gate),
          Effect.withTracer(traced.tracer)
        )
        const [c1, c2, c3] = traced.byName("execute_tool read")
        expect(c1?.events.map(([name]) => name)).toEqual([Spans.Event.permission])
        expect(c1?.events[0]?.[2]).toMatchObject({ "agent_harness.decision": "allow", "agent_harness.allowed": true })
        expect(c2?.attributes.get(A.errorType)).toBe("denied")
        expect(c2?.events[0]?.[2]).toMatchObject({ "agent_harness.decision": "deny" })
        // c3 failed its schema before any middleware: no decision, not executed.
        expect(c3?.events).toEqual([])
        expect(c3?.attributes.get(A.errorType)).toBe("not_executed")

        const off = capture()
        yield* Loop.run({ toolset, messages: opening }).pipe(
          Effect.provide(conversation().layer),
          Effect.withTracer(off.tracer),
          Effect.withTracerEnabled(false)
        )
        expect(off.spans).toEqual([])
      })
  )

  it.effect("Execute.execute alone opens an execute_tool span; a hostile input getter does not break it", () =>
    Effect.gen(function* () {
      const traced = capture()
      const hostile = {
        id: "h1",
        name: "read",
        get input(): unknown {
          throw new Error("no input for you")
        }
      }
      const outcome = yield* Execute.execute(toolset, hostile).pipe(
        Effect.withTracer(traced.tracer),
        Effect.provideService(Spans.Content, true)
      )
      expect(outcome._tag).toBe("NotExecuted")
      const span = traced.one("execute_tool read")
      expect(span.attributes.get(A.errorType)).toBe("not_executed")
      expect(String(span.attributes.get(A.toolArguments))).toContain("no input for you")
    })
  )

  it.effect(
    "Model.ask (the planner's and the summarizer's calls) is a chat span too; the loop's streamed path opens one, not two",
    () =>
      Effect.gen(function* () {
        const traced = capture()
        const model: Model.Shape = {
          provider: "openai",
          model: "gpt-test",
          maxOutputTokens: 64,
          respond: () => Effect.succeed({ content: [text("a plan")], usage: { inputTokens: 7, outputTokens: 3 } })
        }
        const response = yield* Model.ask(model, { messages: opening, toolset }).pipe(Effect.withTracer(traced.tracer))
        expect(response.content).toEqual([text("a plan")])
        const chat = traced.one("chat gpt-test")
        expect(Object.fromEntries(chat.attributes)).toEqual({
          [A.operationName]: "chat",
          [A.providerName]: "openai",
          [A.requestModel]: "gpt-test",
          [A.requestMaxTokens]: 64,
          [A.inputTokens]: 7,
          [A.outputTokens]: 3
        })
        const streamed = capture()
        yield* Loop.stream({ toolset, messages: opening }).pipe(
          Stream.runDrain,
          Effect.provide(conversation().layer),
          Effect.withTracer(streamed.tracer)
        )
        expect(streamed.byName("chat")).toHaveLength(2)
      })
  )

  it.effect("with no trace given, a breaker trip and a budget stop are events of the run's span", () =>
    Effect.gen(function* () {
      const traced = capture()
      const same = [toolUse("r1", "read", { path: "a.txt" })]
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        maxTurns: 10,
        breaker: { after: 2, window: 3, action: "stop" }
      }).pipe(
        Effect.provide(scripted([same, [toolUse("r2", "read", { path: "a.txt" })], [text("never")]]).layer),
        Effect.withTracer(traced.tracer)
      )
      expect(result.stop).toBe("repeated_call")
      const agent = traced.one("invoke_agent")
      expect(agent.events.map(([name]) => name)).toEqual([Spans.Event.breakerTripped])
      expect(agent.events[0]?.[2]).toMatchObject({ "agent_harness.tool_use_id": "r2", "agent_harness.count": 2 })

      const spent = capture()
      const stopped = yield* Loop.run({
        toolset,
        messages: opening,
        maxOutputTokens: 100,
        spend: Spend.make({ totalTokens: 10 })
      }).pipe(Effect.provide(conversation().layer), Effect.withTracer(spent.tracer))
      expect(stopped.stop).toBe("token_budget")
      const run = spent.one("invoke_agent")
      expect(run.attributes.get(A.stopReason)).toBe("token_budget")
      expect(run.events.map(([name]) => name)).toEqual([Spans.Event.spendRefused])
      expect(run.events[0]?.[2]).toMatchObject({ "agent_harness.reason": "token_budget", "agent_harness.turn": 1 })
      expect(spent.byName("chat")).toEqual([])
    })
  )
})
