/**
 * Real runs exported through `Telemetry.layer` with the official OTLP exporters to the loopback
 * receiver, which decodes the payloads with the official OTLP protobuf definitions (or as
 * OTLP/JSON): a conversation, a plan session with a replan, a call the permission gate denies and
 * a journal replay. Every span is checked: its name, kind, parent, attributes, events and status.
 */
import { Execute, Loop, Message, Model, Spans } from "@agent-harness/executor"
import { Journal, MemoryStore } from "@agent-harness/idempotency"
import { Gate } from "@agent-harness/permission"
import { RulePlanner, Session, Step } from "@agent-harness/planner"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Layer, Schema } from "effect"
import { Telemetry } from "../src/index.ts"
import * as Receiver from "./fixtures/receiver.ts"

const A = Spans.Attribute
/** OTLP's span kinds and status codes. */
const internal = 1
const client = 3
const ok = 1
const error = 2

class NoSuchFile extends Data.TaggedError("NoSuchFile")<{ readonly message: string }> {}

const files: Record<string, string> = { "a.txt": "alpha", "b.txt": "beta" }
const Read = Tool.make("read", {
  description: "Reads a file",
  parameters: Schema.Struct({ path: Schema.String }),
  annotations: { readOnly: true },
  run: ({ path }) => {
    const content = files[path]
    return content === undefined ? Effect.fail(new NoSuchFile({ message: `no file ${path}` })) : Effect.succeed(content)
  }
})
const written: Array<string> = []
const Append = Tool.make("append", {
  description: "Appends a line to the log",
  parameters: Schema.Struct({ line: Schema.String }),
  run: ({ line }) => {
    written.push(line)
    return "appended"
  }
})
const toolset = Toolset.make(Read, Append)

/** A model that names itself and reports usage: a turn of calls, then a text. */
const modelOf = (turns: ReadonlyArray<ReadonlyArray<Message.ReplyBlock>>): Layer.Layer<Model.Model> => {
  let at = 0
  return Model.layer({
    provider: "anthropic",
    model: "claude-test",
    maxOutputTokens: 1024,
    respond: () =>
      Effect.sync(() => {
        const content = turns[at++] ?? [Message.text("no reply left")]
        return {
          content,
          model: "claude-test-20261201",
          usage: { inputTokens: 50, outputTokens: 5 },
          finishReason: content.some((block) => block.type === "tool_use") ? "tool-calls" : "stop"
        } satisfies Model.Response
      })
  })
}

const opening = [Message.user("Read a.txt and missing.txt, then log it.")]

const conversation = () =>
  modelOf([
    [
      Message.toolUse("c1", "read", { path: "a.txt" }),
      Message.toolUse("c2", "read", { path: "missing.txt" }),
      Message.toolUse("c3", "read", { file: "a.txt" }),
      Message.toolUse("c4", "append", { line: "read a" })
    ],
    [Message.text("Done.")]
  ])

/** Runs `program` under `Telemetry.layer` to a fresh receiver; the layer closes (flushes) before this returns. */
const exported = <A, E, R>(protocol: Telemetry.Protocol, program: Effect.Effect<A, E, R>, content = false) =>
  Effect.gen(function* () {
    const receiver = yield* Effect.promise(() => Receiver.start())
    yield* Effect.addFinalizer(() => Effect.promise(() => receiver.close()))
    const value = yield* program.pipe(
      Effect.provide(Telemetry.layer({ endpoint: receiver.url, protocol, serviceName: "runs-test", content }))
    )
    assert.deepStrictEqual(receiver.problems, [])
    return { value, spans: receiver.spans(), receiver }
  })

const byName = (spans: ReadonlyArray<Receiver.ReceivedSpan>, name: string) => spans.filter((s) => s.name === name)
const only = (spans: ReadonlyArray<Receiver.ReceivedSpan>, name: string) => {
  const found = byName(spans, name)
  assert.strictEqual(found.length, 1, `one span '${name}', got ${found.length}: ${spans.map((s) => s.name).join(", ")}`)
  return found[0] as Receiver.ReceivedSpan
}

const protocols: ReadonlyArray<Telemetry.Protocol> = ["http/protobuf", "http/json"]

describe("runs exported over OTLP", () => {
  for (const protocol of protocols) {
    it.live(
      `${protocol}: a conversation is invoke_agent over chat and execute_tool spans, as the conventions spell them`,
      () =>
        Effect.gen(function* () {
          const { value, spans } = yield* exported(
            protocol,
            Loop.run({ toolset, messages: opening, maxOutputTokens: 1024 }).pipe(Effect.provide(conversation()))
          )
          assert.strictEqual(value.stop, "end")
          const agent = only(spans, "invoke_agent")
          assert.strictEqual(agent.parentSpanId, undefined)
          assert.strictEqual(agent.kind, internal)
          assert.strictEqual(agent.resource["service.name"], "runs-test")
          assert.deepStrictEqual(agent.attributes, {
            [A.operationName]: "invoke_agent",
            [A.providerName]: "anthropic",
            [A.requestModel]: "claude-test",
            [A.stopReason]: "end",
            [A.turns]: 2,
            [A.inputTokens]: 100,
            [A.outputTokens]: 10
          })
          const chats = byName(spans, "chat claude-test")
          assert.strictEqual(chats.length, 2)
          for (const [index, chat] of chats.entries()) {
            assert.strictEqual(chat.traceId, agent.traceId)
            assert.strictEqual(chat.parentSpanId, agent.spanId)
            assert.strictEqual(chat.kind, client)
            assert.deepStrictEqual(chat.attributes, {
              [A.operationName]: "chat",
              [A.providerName]: "anthropic",
              [A.requestModel]: "claude-test",
              [A.requestMaxTokens]: 1024,
              [A.turn]: index + 1,
              [A.responseModel]: "claude-test-20261201",
              [A.inputTokens]: 50,
              [A.outputTokens]: 5,
              [A.finishReasons]: [index === 0 ? "tool-calls" : "stop"]
            })
            assert.strictEqual(chat.status.code, ok)
          }
          const calls = spans.filter((s) => s.name.startsWith("execute_tool "))
          assert.deepStrictEqual(
            calls.map((s) => [s.name, s.attributes[A.toolCallId], s.attributes[A.errorType] ?? null, s.status.code]),
            [
              ["execute_tool read", "c1", null, ok],
              ["execute_tool read", "c2", "tool_error", error],
              ["execute_tool read", "c3", "not_executed", error],
              ["execute_tool append", "c4", null, ok]
            ]
          )
          for (const call of calls) {
            assert.strictEqual(call.parentSpanId, agent.spanId)
            assert.strictEqual(call.kind, internal)
            assert.strictEqual(call.attributes[A.operationName], "execute_tool")
            assert.strictEqual(call.attributes[A.toolType], "function")
            // Content is off: no arguments, no results.
            assert.isFalse(A.toolArguments in call.attributes)
            assert.isFalse(A.toolResult in call.attributes)
          }
          // No span carries the history or the reply either.
          for (const span of spans) {
            assert.isFalse(A.inputMessages in span.attributes || A.outputMessages in span.attributes, span.name)
          }
        }),
      60_000
    )
  }

  it.live(
    "content on: the chat spans carry the history and the reply, the call spans the arguments and results",
    () =>
      Effect.gen(function* () {
        const { spans } = yield* exported(
          "http/protobuf",
          Loop.run({ toolset, messages: opening }).pipe(Effect.provide(conversation())),
          true
        )
        const [first] = byName(spans, "chat claude-test")
        assert.deepStrictEqual(JSON.parse(String(first?.attributes[A.inputMessages])), opening)
        const [c1, c2] = spans.filter((s) => s.name === "execute_tool read")
        assert.deepStrictEqual(JSON.parse(String(c1?.attributes[A.toolArguments])), { path: "a.txt" })
        assert.strictEqual(c1?.attributes[A.toolResult], "alpha")
        assert.include(String(c2?.attributes[A.toolResult]), "no file missing.txt")
      }),
    60_000
  )

  it.live(
    "a plan session with a replan: invoke_workflow plan over plan, replan and the steps, the diff an event",
    () =>
      Effect.gen(function* () {
        const first = [
          Step.make(1, "read", { path: "a.txt" }, "alpha"),
          Step.make(2, "read", { path: "missing.txt" }, "fails"),
          Step.make(3, "append", { line: "both" }, "logged")
        ]
        const second = [
          Step.make(2, "read", { path: "b.txt" }, "beta"),
          Step.make(3, "append", { line: "both" }, "logged")
        ]
        const { value, spans } = yield* exported(
          "http/json",
          Session.run({
            goal: "read two files and log it",
            planner: RulePlanner.make([
              { when: null, plan: first },
              { when: "no file", plan: second }
            ]),
            toolset,
            maxSteps: 10,
            maxReplans: 1
          })
        )
        assert.strictEqual(value.reason, "goal_met")
        const session = only(spans, "invoke_workflow plan")
        assert.strictEqual(session.parentSpanId, undefined)
        assert.deepStrictEqual(session.attributes, {
          [A.operationName]: "invoke_workflow",
          [A.workflowName]: "plan",
          [A.conversationId]: value.session_id,
          [A.stopReason]: "goal_met",
          "agent_harness.plan.status": "completed",
          "agent_harness.plan.steps_run": 4,
          [A.replans]: 1
        })
        assert.deepStrictEqual(
          session.events.map((e) => e.name),
          ["agent_harness.plan.created", Spans.Event.planDiff, "agent_harness.plan.created"]
        )
        assert.deepStrictEqual(session.events[1]?.attributes, {
          [A.planRevision]: 1,
          "agent_harness.plan.removed": 0,
          "agent_harness.plan.added": 0,
          "agent_harness.plan.revised": 1
        })
        const planning = spans.filter((s) => s.name === "plan" || s.name === "replan")
        assert.deepStrictEqual(
          planning.map((s) => [s.name, s.attributes[A.planRevision], s.parentSpanId === session.spanId]),
          [
            ["plan", 0, true],
            ["replan", 1, true]
          ]
        )
        const steps = spans.filter((s) => s.name.startsWith("execute_tool "))
        assert.deepStrictEqual(
          steps.map((s) => [
            s.attributes[A.toolCallId],
            s.attributes[A.errorType] ?? null,
            s.parentSpanId === session.spanId
          ]),
          [
            [`${value.session_id}/step-0-1`, null, true],
            [`${value.session_id}/step-0-2`, "tool_error", true],
            [`${value.session_id}/step-1-2`, null, true],
            [`${value.session_id}/step-1-3`, null, true]
          ]
        )
      }),
    60_000
  )

  it.live(
    "a call the permission gate denies: denied, with the gate's decision an event of its span",
    () =>
      Effect.gen(function* () {
        const before = written.length
        const gate = Gate.layer({
          policy: {
            rules: [
              { tool: "read", decision: "allow" },
              { tool: "append", decision: "deny" }
            ]
          }
        })
        const { value, spans } = yield* exported(
          "http/protobuf",
          Loop.run({ toolset, messages: opening }).pipe(Effect.provide(Layer.merge(conversation(), gate)))
        )
        assert.strictEqual(value.stop, "end")
        assert.strictEqual(written.length, before, "the denied append did not run")
        const append = only(spans, "execute_tool append")
        assert.strictEqual(append.attributes[A.errorType], "denied")
        assert.strictEqual(append.status.code, error)
        assert.deepStrictEqual(
          append.events.map((e) => [
            e.name,
            e.attributes["agent_harness.decision"],
            e.attributes["agent_harness.allowed"]
          ]),
          [
            [Spans.Event.permission, "deny", false],
            ["exception", undefined, undefined]
          ]
        )
        // The error status's exception says the error type and the tool, nothing of the call's content.
        assert.deepStrictEqual(append.events[1]?.attributes, {
          "exception.type": "denied",
          "exception.message": "append: denied",
          // No stack of ours.
          "exception.stacktrace": "denied: append: denied"
        })
        assert.strictEqual(append.status.message, "append: denied")
        const [c1] = byName(spans, "execute_tool read")
        assert.deepStrictEqual(
          c1?.events.map((e) => [e.name, e.attributes["agent_harness.decision"]]),
          [[Spans.Event.permission, "allow"]]
        )
      }),
    60_000
  )

  it.live(
    "a journal replay: the calls a journal recorded are given again, each span saying what it was",
    () =>
      Effect.gen(function* () {
        const store = yield* MemoryStore.make
        const journaled = Journal.layer(store)
        // The first run records every call; the second, with the same ids, is answered from the record.
        yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(Layer.merge(conversation(), journaled)))
        const before = written.length
        const { spans } = yield* exported(
          "http/json",
          Loop.run({ toolset, messages: opening }).pipe(Effect.provide(Layer.merge(conversation(), journaled)))
        )
        assert.strictEqual(written.length, before, "the replayed append did not run again")
        const calls = spans.filter((s) => s.name.startsWith("execute_tool "))
        assert.deepStrictEqual(
          calls.map((s) => [
            s.attributes[A.toolCallId],
            s.attributes[A.replayedOriginal] ?? null,
            s.attributes[A.errorType] ?? null,
            s.events.map((e) => e.name)
          ]),
          [
            ["c1", "Succeeded", null, [Spans.Event.replayed]],
            ["c2", "Failed", "replayed", [Spans.Event.replayed, "exception"]],
            // Not executed calls are not journaled: the schema refuses it again.
            ["c3", null, "not_executed", ["exception"]],
            ["c4", "Succeeded", null, [Spans.Event.replayed]]
          ]
        )
      }),
    60_000
  )

  it.live(
    "the middleware composes: Execute.withMiddleware inside a traced run keeps every call in its span",
    () =>
      Effect.gen(function* () {
        const marked: Execute.Middleware = (_call, _tool, run) => run
        const { spans } = yield* exported(
          "http/protobuf",
          Loop.run({ toolset, messages: opening }).pipe(Execute.withMiddleware(marked), Effect.provide(conversation()))
        )
        assert.strictEqual(spans.filter((s) => s.name.startsWith("execute_tool ")).length, 4)
      }),
    60_000
  )
})
