import { Trace } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { ConversationTrace, Lines, type Model } from "../src/index.ts"
import { broken, commands, long, showcase } from "./fixtures.ts"

const read = (text: string): Model.Conversation => ConversationTrace.fromLines("f1", "trace.jsonl", Lines.read(text))

const calls = (file: Model.Conversation) =>
  file.turns.flatMap((t) => t.calls.map((c) => ({ turn: t.turn, id: c.id, status: c.status, note: c.note })))

const observation = (fields: Record<string, unknown>) =>
  JSON.stringify({
    type: "call.answered",
    turn: 1,
    result: { type: "tool_result", tool_use_id: "c1", content: "…", is_error: true },
    ...fields
  })

const resultOf = (content: string) => ({ type: "tool_result", tool_use_id: "c1", content, is_error: true })

const oneCall = Trace.line({
  type: "model.replied",
  turn: 1,
  reply: [{ type: "tool_use", id: "c1", name: "append", input: { path: "a" } }]
})

describe("ConversationTrace.fromLines: the repeated-call breaker", () => {
  it("notes a trip on its call, after the call's own note; one naming no call is a problem", () => {
    const trip = (fields: Record<string, unknown>) =>
      Trace.line({
        type: "breaker.tripped",
        turn: 1,
        tool_use_id: "c1",
        name: "append",
        count: 3,
        after: 3,
        window: 5,
        action: "tell",
        ...fields
      })
    const file = read([oneCall, observation({ outcome: "Failed", failure: "ToolError" }), trip({})].join("\n"))
    // The only problem: these lines have no start.
    expect(file.problems.map((p) => p.line)).toStrictEqual([null])
    expect(calls(file)).toStrictEqual([
      {
        turn: 1,
        id: "c1",
        status: "failed",
        note: "ToolError; repeated call: 3 identical within 5 turn(s); the breaker told the model"
      }
    ])
    const stopped = read([oneCall, observation({ outcome: "Failed" }), trip({ action: "stop" })].join("\n"))
    expect(calls(stopped)[0]?.note).toBe("repeated call: 3 identical within 5 turn(s); the breaker stopped the run")
    const stray = read([oneCall, trip({ tool_use_id: "c9" })].join("\n"))
    const placed = stray.problems.filter((p) => p.line !== null)
    expect(placed.map((p) => `${p.line}: ${p.path}: ${p.message}`)).toStrictEqual([
      "2: tool_use_id: no call 'c9' in turn 1 for the breaker to trip on"
    ])
  })
})

describe("ConversationTrace.fromLines: each call marked by what happened", () => {
  it("reads every outcome of the showcase: failed, not executed, ok, denied, outcome unknown, replayed", () => {
    const file = read(showcase())
    expect(file.problems).toStrictEqual([])
    expect(calls(file)).toStrictEqual([
      { turn: 1, id: "c1", status: "failed", note: "ToolError" },
      { turn: 1, id: "c2", status: "not_executed", note: undefined },
      { turn: 2, id: "c3", status: "ok", note: undefined },
      { turn: 2, id: "c4", status: "denied", note: undefined },
      { turn: 3, id: "c5", status: "unknown", note: undefined },
      { turn: 3, id: "c6", status: "replayed", note: "recorded outcome: Succeeded" }
    ])
    expect(file.counts).toStrictEqual({
      ok: 1,
      failed: 1,
      not_executed: 1,
      denied: 1,
      unknown: 1,
      replayed: 1,
      unanswered: 0
    })
    expect(file.called).toStrictEqual(["append", "list", "read"])
    const first = file.turns[0]?.calls[0]
    expect(first).toMatchObject({
      name: "read",
      input: { path: "recipes/salmorejo.txt" },
      outcome: "Failed",
      content: "file 'recipes/salmorejo.txt' does not exist",
      isError: true
    })
  })

  it("reads the opening, the budgets, the stop, reasoning, usage and retries", () => {
    const file = read(showcase())
    expect(file.opening).toStrictEqual([
      { role: "system", text: "You work with the user's files through your tools." },
      { role: "user", text: "Add what salmorejo needs to list.txt." }
    ])
    expect(file.maxTurns).toBe(10)
    expect(file.tools).toStrictEqual(["read", "list", "append"])
    expect(file.annotations).toStrictEqual([{ key: "locale", value: "en" }])
    expect(file.stop).toStrictEqual({
      reason: "end",
      text: "There is no salmorejo recipe; list.txt is unchanged.",
      turns: 4
    })
    expect(file.turns.map((t) => t.turn)).toStrictEqual([1, 2, 3, 4])
    expect(file.turns[1]?.reasoning).toStrictEqual(["The recipe is missing. List the recipes folder first."])
    expect(file.turns[0]?.text).toStrictEqual(["I'll read the recipe and the list."])
    expect(file.turns[0]?.messages).toBe(2)
    expect(file.usage).toStrictEqual({ input_tokens: 1200, output_tokens: 85 })
    expect(file.retries).toBe(1)
    // Events of newer harnesses are kept under their turn, as they are.
    expect(file.turns[2]?.other.map((e) => [e.type, e.where])).toStrictEqual([
      ["usage", "line 17"],
      ["retry", "line 18"]
    ])
  })

  it("reads a failure tag when the trace has one (the proposed `failure` field) and a replay's recorded outcome", () => {
    const tagged = read([oneCall, observation({ outcome: "Failed", failure: "OutcomeUnknown" })].join("\n"))
    expect(calls(tagged)).toStrictEqual([{ turn: 1, id: "c1", status: "unknown", note: undefined }])
    const timedOut = read([oneCall, observation({ outcome: "Failed", failure: "TimedOut" })].join("\n"))
    expect(calls(timedOut)).toStrictEqual([{ turn: 1, id: "c1", status: "failed", note: "TimedOut" }])
    const replayed = read([oneCall, observation({ outcome: "Replayed", original: "Failed" })].join("\n"))
    expect(calls(replayed)).toStrictEqual([{ turn: 1, id: "c1", status: "replayed", note: "recorded outcome: Failed" }])
  })

  it("a failure tag wins over the text; a trace without one (an older harness) is matched by its text", () => {
    const unknownText = MessageCatalog.spanish.outcomeUnknown
    const tagged = read(
      [oneCall, observation({ outcome: "Failed", failure: "ToolError", result: resultOf(unknownText) })].join("\n")
    )
    expect(calls(tagged)).toStrictEqual([{ turn: 1, id: "c1", status: "failed", note: "ToolError" }])
    const older = read([oneCall, observation({ outcome: "Failed", result: resultOf(unknownText) })].join("\n"))
    expect(calls(older)).toStrictEqual([
      { turn: 1, id: "c1", status: "unknown", note: "recognised by its text (the trace has no failure tag)" }
    ])
    const newer = read([oneCall, observation({ outcome: "Failed", failure: "RateLimited" })].join("\n"))
    expect(calls(newer)).toStrictEqual([{ turn: 1, id: "c1", status: "failed", note: "RateLimited" }])
    expect(newer.problems.filter((p) => p.path !== "(trace)")).toStrictEqual([])
  })

  it("reads outcomes this version does not know by what the model was shown", () => {
    const denied = read([oneCall, observation({ outcome: "Denied" })].join("\n"))
    expect(calls(denied)[0]?.status).toBe("denied")
    const newer = read([oneCall, observation({ outcome: "Cancelled" })].join("\n"))
    expect(calls(newer)[0]).toStrictEqual({ turn: 1, id: "c1", status: "failed", note: "outcome Cancelled" })
    expect(newer.problems).toStrictEqual([
      { line: null, path: "(trace)", message: "no start event: the opening messages and budgets are unknown" }
    ])
  })
})

describe("ConversationTrace.fromLines: bad input", () => {
  it("names each bad line by line and JSON path, and still reads the rest", () => {
    const file = read(broken())
    expect(file.problems.map((p) => [p.line, p.path, p.path === "(line)" ? "" : p.message])).toStrictEqual([
      [4, "(line)", ""],
      [6, "outcome", "missing"],
      [7, "reply[1].id", "missing"]
    ])
    expect(calls(file)).toStrictEqual([
      { turn: 1, id: "a1", status: "ok", note: undefined },
      { turn: 2, id: "a3", status: "unanswered", note: undefined }
    ])
    expect(file.turns[1]?.text).toStrictEqual(["Reading two more."])
    expect(file.turns[1]?.other.map((e) => e.problem)).toStrictEqual(["outcome: missing", "reply[1].id: missing"])
    expect(file.stop).toBeNull()
    expect(file.counts.unanswered).toBe(1)
  })

  it("names a line that is not an event, an event without a type, a second start, a second observation", () => {
    const start = Trace.line({ type: "run.started", messages: [], max_turns: 2, tools: [] })
    const ok = observation({ outcome: "Succeeded" })
    const file = read(["[1,2]", '{"turn":1}', start, start, oneCall, ok, ok].join("\n"))
    expect(file.problems).toStrictEqual([
      { line: 1, path: "(root)", message: "expected an object (an event)" },
      { line: 2, path: "type", message: "missing" },
      { line: 4, path: "type", message: "a second start (the first is on line 3)" },
      { line: 7, path: "result.tool_use_id", message: "a second observation for call c1" }
    ])
    expect(file.turns[0]?.other.map((e) => e.where)).toStrictEqual(["line 2"])
    expect(file.other.map((e) => e.where)).toStrictEqual(["line 1"])
  })

  it("keeps an observation with no call, and reply blocks of kinds it does not know", () => {
    const file = read(
      [
        JSON.stringify({ type: "model.replied", turn: 1, reply: [{ type: "image", source: "…" }] }),
        observation({ outcome: "Succeeded", turn: 1 })
      ].join("\n")
    )
    expect(file.turns[0]?.calls[0]).toMatchObject({
      id: "c1",
      name: "(no call recorded)",
      note: "no call was recorded for this observation"
    })
    expect(file.turns[0]?.other.map((e) => e.type)).toStrictEqual(["reply block: image"])
  })
})

describe("ConversationTrace: what the executor writes", () => {
  it("reads every event type of Trace.Event and the edges' events, written by Trace.line, without a problem", () => {
    const events: ReadonlyArray<Trace.Entry> = [
      { type: "run.started", messages: [{ role: "user", content: "hi" }], max_turns: 2, tools: ["read"] },
      { type: "trace.annotated", key: "files", value: { "a.txt": "a" } },
      { type: "model.requested", turn: 1, messages: 1 },
      {
        type: "model.replied",
        turn: 1,
        reply: [{ type: "tool_use", id: "c1", name: "read", input: { path: "a.txt" } }]
      },
      { type: "call.started", turn: 1, tool_use_id: "c1", name: "read", input: { path: "a.txt" } },
      {
        type: "call.answered",
        turn: 1,
        outcome: "Succeeded",
        result: { type: "tool_result", tool_use_id: "c1", content: "a", is_error: false }
      },
      { type: "permission.decided", tool_use_id: "c1", name: "read", rule: 0, decision: "allow", allowed: true },
      {
        type: "breaker.tripped",
        turn: 1,
        tool_use_id: "c1",
        name: "read",
        count: 2,
        after: 2,
        window: 1,
        action: "tell"
      },
      { type: "call.progressed", turn: 1, tool_use_id: "c1", name: "read", progress: 1, total: 2, message: "half" },
      { type: "model.requested", turn: 2, messages: 3 },
      { type: "model.retried", turn: 2, attempt: 1, delay_ms: 1000, status: 529, message: "overloaded" },
      { type: "usage.reported", turn: 2, input_tokens: 40, output_tokens: 2 },
      { type: "model.failed", turn: 2, message: "overloaded" }
    ]
    expect(new Set(events.map((e) => e.type))).toStrictEqual(
      new Set([...[...ConversationTrace.types].filter((t) => t !== "run.ended"), "permission.decided", "model.retried"])
    )
    const file = read([...events.map(Trace.line), Trace.line({ type: "run.ended", stop: "end", turns: 1 })].join("\n"))
    expect(file.problems).toStrictEqual([])
    expect(file.turns[1]?.failed).toBe("overloaded")
    expect(file.retries).toBe(1)
    expect(file.usage).toStrictEqual({ input_tokens: 40, output_tokens: 2 })
    expect(calls(file)).toStrictEqual([
      {
        turn: 1,
        id: "c1",
        status: "ok",
        note: "repeated call: 2 identical within 1 turn(s); the breaker told the model"
      }
    ])
  })

  it("reads a 10,000-turn trace", () => {
    const file = read(long(10_000))
    expect(file.turns).toHaveLength(10_000)
    expect(file.counts.failed).toBe(Math.floor(10_000 / 7))
    expect(file.problems).toStrictEqual([])
  })
})

describe("ConversationTrace.fromLines: streamed turns", () => {
  it("marks a turn whose model.replied says streamed: true, and no other; a streamed that is not true marks nothing", () => {
    expect(read(showcase()).turns.map((t) => [t.turn, t.streamed])).toStrictEqual([
      [1, false],
      [2, true],
      [3, false],
      [4, false]
    ])
    const text = [
      Trace.line({ type: "model.requested", turn: 1, messages: 1 }),
      JSON.stringify({ type: "model.replied", turn: 1, streamed: "yes", reply: [{ type: "text", text: "hi" }] })
    ].join("\n")
    expect(read(text).turns.map((t) => t.streamed)).toStrictEqual([false])
  })
})

describe("ConversationTrace.fromLines: spend", () => {
  it("the run's spend is its last spend.settled total; a refusal is said in words; each stays under its turn", () => {
    const settled = (turn: number, total: number) =>
      JSON.stringify({
        type: "spend.settled",
        turn,
        reported: true,
        spent: { input_tokens: 1000, output_tokens: 50, cost: 0.00375 },
        total: { input_tokens: total * 1000, output_tokens: total * 50, cost: total * 0.00375 }
      })
    const refused = JSON.stringify({
      type: "spend.refused",
      turn: 3,
      reason: "token_budget",
      kind: "total_tokens",
      limit: 3000,
      committed: 2100,
      requested: 1500
    })
    const file = read([oneCall, settled(1, 1), settled(2, 2), refused].join("\n"))
    expect(file.spend).toStrictEqual({
      inputTokens: 2000,
      outputTokens: 100,
      cost: 0.0075,
      refused: "token_budget: total_tokens 3,000; 2,100 spent or reserved, the next call needed up to 1,500 more"
    })
    expect(read(oneCall).spend).toBeNull()
    // A malformed total keeps what was known.
    expect(
      read([settled(1, 1), JSON.stringify({ type: "spend.settled", turn: 2, total: "x" })].join("\n")).spend
        ?.inputTokens
    ).toBe(1000)
  })
})

describe("ConversationTrace.fromLines: commands", () => {
  it("reads a command's report from its observation's structured content; other structured content is none", () => {
    const file = read(commands())
    expect(file.problems).toStrictEqual([])
    const [k1, k2] = file.turns[0]?.calls ?? []
    expect(k1?.command).toStrictEqual({
      exitCode: 3,
      signal: null,
      timedOut: false,
      stdout: { text: "cc main.c\n", bytes: 10, truncated: false, binary: false },
      stderr: { text: "main.c:1: error\n", bytes: 16, truncated: false, binary: false }
    })
    expect(k2?.command?.stdout).toStrictEqual({ text: "abc", bytes: 50_000, truncated: true, binary: false })
    expect(k2?.command?.stderr.binary).toBe(true)
    const other = read(
      [
        oneCall,
        observation({ outcome: "Succeeded", result: { ...resultOf("ok"), is_error: false, structured: { rows: 3 } } })
      ].join("\n")
    )
    expect(other.turns[0]?.calls[0]?.command).toBeUndefined()
    const wrongTypes = read(
      [
        oneCall,
        observation({
          outcome: "Succeeded",
          result: { ...resultOf("ok"), structured: { exit_code: "3", signal: null, timed_out: false } }
        })
      ].join("\n")
    )
    expect(wrongTypes.turns[0]?.calls[0]?.command).toBeUndefined()
  })
})
