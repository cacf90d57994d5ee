/**
 * A conversation trace (JSON Lines of the executor's `Trace`, read through `Trace.upgrade` so an
 * old one reads too) as the page draws it: the opening, one entry per turn with its reply and
 * each call's observation marked by what happened, the stop. Lines that cannot be read become
 * problems and reading goes on; events the core does not have (an edge's `permission.decided`,
 * a plan session's beside the run) and types this version does not know are kept and drawn as
 * they are (those with a `turn` under their turn); `usage.reported` events are added up and
 * `model.retried` events counted; a repeated-call breaker that tripped on a call is noted on
 * that call; a turn whose reply came as a stream (`model.replied` with `streamed: true`) is
 * marked streamed.
 *
 * @since 0.1.0
 */
import { Message, Trace } from "@agent-harness/executor"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { Result, Schema, Struct } from "effect"
import { commandOf } from "./internal/command.ts"
import * as Spending from "./internal/spend.ts"
import * as Lines from "./Lines.ts"
import type * as Model from "./Model.ts"

/**
 * The schema of each event type but `model.replied` (whose blocks are read one by one): the
 * executor's own field schemas, but only the fields the page draws, so a trace from a harness
 * that adds fields (or outcomes, or stop reasons) still reads.
 */
const schemas = {
  "run.started": Trace.Start.mapFields(Struct.pick(["type", "messages", "max_turns", "tools"])),
  "trace.annotated": Trace.Annotation.mapFields(Struct.pick(["type", "key", "value"])),
  "model.requested": Trace.ModelRequest.mapFields(Struct.pick(["type", "turn", "messages"])),
  "model.failed": Trace.ModelFailed.mapFields(Struct.pick(["type", "turn", "message"])),
  "call.started": Trace.Call.mapFields(Struct.pick(["type", "turn", "tool_use_id", "name", "input"])),
  "call.answered": Trace.Observation.mapFields((fields) => ({
    ...Struct.pick(fields, ["type", "turn", "result"]),
    outcome: Schema.String,
    failure: Schema.optionalKey(Schema.String),
    original: Schema.optionalKey(Schema.String)
  })),
  "breaker.tripped": Trace.BreakerTripped.mapFields((fields) => ({
    ...Struct.pick(fields, ["type", "turn", "tool_use_id", "count", "window"]),
    action: Schema.String
  })),
  "run.ended": Trace.Stop.mapFields((fields) => ({
    ...Struct.pick(fields, ["type", "text", "turns"]),
    stop: Schema.String
  }))
} as const

type Viewed = { readonly [K in keyof typeof schemas]: (typeof schemas)[K]["Type"] }[keyof typeof schemas]

const decodeTurn = Lines.decode(Trace.ModelReply.fields.turn)
const decodeBlock = Lines.decode(Message.ReplyBlock)
const decoders: {
  readonly [type: string]: (
    json: Model.Json
  ) => Result.Result<Viewed, { readonly path: string; readonly problem: string }>
} = Object.fromEntries(Object.entries(schemas).map(([type, schema]) => [type, Lines.decode(schema)]))

/**
 * The event types of a conversation trace.
 *
 * @since 0.1.0
 */
export const types: ReadonlySet<string> = new Set(Trace.Event.members.map((member) => member.fields.type.literal))

/** Reply block types that carry the model's reasoning. */
const reasoningTypes = new Set(["reasoning", "thinking", "redacted_thinking"])

/** The text of a reasoning block: its first text-like field. */
const reasoningText = (block: { readonly [key: string]: Model.Json }): string => {
  for (const key of ["thinking", "text", "reasoning", "summary", "data"]) {
    const value = block[key]
    if (typeof value === "string") return value
    if (Array.isArray(value)) {
      const parts = value.map((part: Model.Json) =>
        Lines.isObject(part) && typeof part.text === "string" ? part.text : JSON.stringify(part)
      )
      return parts.join("\n")
    }
  }
  return "(no text)"
}

/** The outcome-unknown texts of the shipped catalogues, for traces without a failure tag. */
const unknownTexts = Object.values(MessageCatalog.byLocale).map((catalog) => catalog.outcomeUnknown)

const statusOf = (
  observation: (typeof schemas)["call.answered"]["Type"]
): { readonly status: Model.CallStatus; readonly note?: string } => {
  const { outcome, failure, original } = observation
  const { content, is_error: isError } = observation.result
  switch (outcome) {
    case "Succeeded":
      return { status: "ok" }
    case "NotExecuted":
      return { status: "not_executed" }
    case "Refused":
      return { status: "denied" }
    case "Replayed":
      return original === undefined
        ? { status: "replayed" }
        : { status: "replayed", note: `recorded outcome: ${original}` }
    case "Failed":
      // The failure tag says why; a trace from an older harness has none, and its text is matched.
      if (failure === "OutcomeUnknown") return { status: "unknown" }
      if (failure !== undefined) return { status: "failed", note: failure }
      return unknownTexts.some((text) => content.startsWith(text))
        ? { status: "unknown", note: "recognised by its text (the trace has no failure tag)" }
        : { status: "failed" }
    case "Denied":
      return { status: "denied" }
    default:
      // An outcome this version does not know: what the model was shown decides.
      return { status: isError ? "failed" : "ok", note: `outcome ${outcome}` }
  }
}

interface CallDraft {
  id: string
  name: string
  input: Model.Json
  status: Model.CallStatus
  outcome: string | null
  content: string | null
  isError: boolean | null
  note: string | undefined
  command: Model.CommandReport | undefined
  line: number
}

interface TurnDraft {
  readonly turn: number
  readonly line: number
  messages: number | null
  readonly text: Array<string>
  readonly reasoning: Array<string>
  readonly calls: Array<CallDraft>
  failed: string | null
  streamed: boolean
  readonly other: Array<Model.Generic>
}

const emptyCounts = (): { -readonly [S in Model.CallStatus]: number } => ({
  ok: 0,
  failed: 0,
  not_executed: 0,
  denied: 0,
  unknown: 0,
  replayed: 0,
  unanswered: 0
})

const blocksText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return JSON.stringify(content)
  return content
    .map((block: unknown) => {
      const b = Lines.json(block)
      if (!Lines.isObject(b)) return JSON.stringify(b)
      if (b.type === "text" && typeof b.text === "string") return b.text
      if (b.type === "tool_result") return `[tool_result ${String(b.tool_use_id)}] ${String(b.content)}`
      if (b.type === "tool_use") return `[tool_use ${String(b.name)}] ${JSON.stringify(b.input)}`
      return JSON.stringify(b)
    })
    .join("\n")
}

/** Whether an unknown event type is a usage report (`usage.reported`, `usage`, `<noun>.usage`). */
const isUsage = (type: string): boolean => type === "usage.reported" || type === "usage" || type.endsWith(".usage")

/** Whether an unknown event type is a retry (`model.retried`, `retry`, `<noun>.retry`). */
const isRetry = (type: string): boolean => type === "model.retried" || type === "retry" || type.endsWith(".retry")

/**
 * Reads a conversation trace's lines (already parsed, with the problems found parsing them).
 *
 * @since 0.1.0
 */
export const fromLines = (id: string, name: string, given: Lines.Read): Model.Conversation => {
  const read = Lines.upgraded(given)
  const problems: Array<Model.Problem> = [...read.problems]
  const turns = new Map<number, TurnDraft>()
  const other: Array<Model.Generic> = []
  const annotations: Array<{ readonly key: string; readonly value: Model.Json }> = []
  let start: { readonly line: number; readonly event: (typeof schemas)["run.started"]["Type"] } | undefined
  let stop: Model.Conversation["stop"] = null
  const usage: { [key: string]: number } = {}
  let sawUsage = false
  let retries = 0
  let spend = null as Spending.Spend

  const turnOf = (turn: number, line: number): TurnDraft => {
    let draft = turns.get(turn)
    if (draft === undefined) {
      draft = {
        turn,
        line,
        messages: null,
        text: [],
        reasoning: [],
        calls: [],
        failed: null,
        streamed: false,
        other: []
      }
      turns.set(turn, draft)
    }
    return draft
  }
  const callOf = (draft: TurnDraft, id: string, name: string, input: Model.Json, line: number): CallDraft => {
    let call = draft.calls.find((c) => c.id === id)
    if (call === undefined) {
      call = {
        id,
        name,
        input,
        status: "unanswered",
        outcome: null,
        content: null,
        isError: null,
        note: undefined,
        command: undefined,
        line
      }
      draft.calls.push(call)
    }
    return call
  }
  /** An event kept as it is: under its turn when it names one, else outside the turns. */
  const keep = (event: Model.Generic, turn: Model.Json | undefined, line: number) => {
    if (typeof turn === "number" && Number.isInteger(turn)) turnOf(turn, line).other.push(event)
    else other.push(event)
  }
  const problem = (line: Lines.Line, path: string, message: string) => {
    problems.push(Lines.problem(line, path, message))
    const fields = Lines.isObject(line.json) ? line.json : undefined
    keep(Lines.generic(line, `${path}: ${message}`), fields?.turn, line.line ?? 0)
  }

  for (const line of read.lines) {
    const n = line.line ?? 0
    const raw = line.json
    if (!Lines.isObject(raw)) {
      problem(line, "(root)", "expected an object (an event)")
      continue
    }
    const type = raw.type
    if (typeof type !== "string") {
      problem(line, "type", typeof type === "undefined" ? "missing" : "expected a string (the event type)")
      continue
    }
    if (type === "model.replied") {
      const turn = decodeTurn(raw.turn ?? null)
      if (Result.isFailure(turn)) {
        problem(line, "turn", turn.failure.problem)
        continue
      }
      if (!Array.isArray(raw.reply)) {
        problem(line, "reply", raw.reply === undefined ? "missing" : "expected an array (the reply blocks)")
        continue
      }
      const draft = turnOf(turn.success, n)
      if (raw.streamed === true) draft.streamed = true
      const blocks: ReadonlyArray<Model.Json> = raw.reply
      for (const [i, block] of blocks.entries()) {
        const blockType = Lines.isObject(block) ? block.type : undefined
        if (Lines.isObject(block) && typeof blockType === "string" && reasoningTypes.has(blockType)) {
          draft.reasoning.push(reasoningText(block))
          continue
        }
        if (
          blockType !== "text" &&
          blockType !== "tool_use" &&
          Lines.isObject(block) &&
          typeof blockType === "string"
        ) {
          draft.other.push({ where: Lines.where(line), type: `reply block: ${blockType}`, fields: block })
          continue
        }
        const decoded = decodeBlock(block)
        if (Result.isFailure(decoded)) {
          const path = decoded.failure.path === "(root)" ? `reply[${i}]` : `reply[${i}].${decoded.failure.path}`
          problems.push(Lines.problem(line, path, decoded.failure.problem))
          draft.other.push({
            where: Lines.where(line),
            type: "reply block (unreadable)",
            fields: Lines.isObject(block) ? block : { value: block },
            problem: `${path}: ${decoded.failure.problem}`
          })
          continue
        }
        const b = decoded.success
        if (b.type === "text") draft.text.push(b.text)
        else if (b.type === "tool_use") callOf(draft, b.id, b.name, Lines.json(b.input), n)
      }
      continue
    }
    const decode = decoders[type]
    if (decode === undefined) {
      const event = Lines.generic(line)
      if (isUsage(type)) {
        sawUsage = true
        for (const [key, value] of Object.entries(raw)) {
          if (key !== "turn" && typeof value === "number" && Number.isFinite(value))
            usage[key] = (usage[key] ?? 0) + value
        }
      }
      if (isRetry(type)) retries++
      spend = Spending.after(spend, type, raw)
      keep(event, raw.turn, n)
      continue
    }
    const decoded = decode(raw)
    if (Result.isFailure(decoded)) {
      problem(line, decoded.failure.path, decoded.failure.problem)
      continue
    }
    const event = decoded.success
    switch (event.type) {
      case "run.started":
        if (start !== undefined)
          problems.push(Lines.problem(line, "type", `a second start (the first is on line ${start.line})`))
        else start = { line: n, event }
        break
      case "trace.annotated":
        annotations.push({ key: event.key, value: Lines.json(event.value) })
        break
      case "model.requested":
        turnOf(event.turn, n).messages = event.messages
        break
      case "model.failed":
        turnOf(event.turn, n).failed = event.message
        break
      case "call.started":
        callOf(turnOf(event.turn, n), event.tool_use_id, event.name, Lines.json(event.input), n)
        break
      case "call.answered": {
        const draft = turnOf(event.turn, n)
        const known = draft.calls.some((c) => c.id === event.result.tool_use_id)
        const call = callOf(draft, event.result.tool_use_id, "(no call recorded)", null, n)
        if (call.outcome !== null) {
          problems.push(Lines.problem(line, "result.tool_use_id", `a second observation for call ${call.id}`))
        }
        const { status, note } = statusOf(event)
        call.status = status
        call.outcome = event.outcome
        call.content = event.result.content
        call.isError = event.result.is_error
        call.command = commandOf(event.result.structured)
        call.line = n
        call.note = known
          ? note
          : [note, "no call was recorded for this observation"].filter((n) => n !== undefined).join("; ")
        break
      }
      case "breaker.tripped": {
        const call = turnOf(event.turn, n).calls.find((c) => c.id === event.tool_use_id)
        if (call === undefined) {
          problem(
            line,
            "tool_use_id",
            `no call '${event.tool_use_id}' in turn ${event.turn} for the breaker to trip on`
          )
          break
        }
        const did =
          event.action === "tell" ? "told the model" : event.action === "stop" ? "stopped the run" : event.action
        const said = `repeated call: ${event.count} identical within ${event.window} turn(s); the breaker ${did}`
        call.note = call.note === undefined || call.note === "" ? said : `${call.note}; ${said}`
        break
      }
      case "run.ended":
        stop = { reason: event.stop, text: event.text ?? null, turns: event.turns }
        break
    }
  }

  const counts = emptyCounts()
  const called = new Set<string>()
  const ordered = [...turns.values()].sort((a, b) => a.turn - b.turn)
  const turnList: Array<Model.Turn> = ordered.map((draft) => {
    const calls = draft.calls.map((c): Model.Call => {
      counts[c.status]++
      called.add(c.name)
      return {
        id: c.id,
        name: c.name,
        input: c.input,
        status: c.status,
        outcome: c.outcome,
        content: c.content,
        isError: c.isError,
        ...(c.note === undefined || c.note === "" ? {} : { note: c.note }),
        ...(c.command === undefined ? {} : { command: c.command }),
        line: c.line
      }
    })
    return {
      turn: draft.turn,
      line: draft.line,
      messages: draft.messages,
      text: draft.text,
      reasoning: draft.reasoning,
      calls,
      failed: draft.failed,
      streamed: draft.streamed,
      other: draft.other
    }
  })
  if (start === undefined && read.lines.length > 0) {
    problems.push({
      line: null,
      path: "(trace)",
      message: "no start event: the opening messages and budgets are unknown"
    })
  }
  return {
    kind: "conversation",
    id,
    name,
    problems,
    opening: (start?.event.messages ?? []).map((m) => ({ role: m.role, text: blocksText(m.content) })),
    tools: start?.event.tools ?? [],
    maxTurns: start?.event.max_turns ?? null,
    annotations,
    turns: turnList,
    stop,
    counts,
    called: [...called].sort(),
    usage: sawUsage ? usage : null,
    retries,
    spend,
    other
  }
}
