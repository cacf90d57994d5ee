/**
 * From a recorded trace to a regression test: `capture` turns the JSON Lines trace of a
 * conversation into a `conversation` scenario that replays it — the same replies, and before
 * each next reply the exact observations the model was shown — and passes as is. Edit an
 * expected observation to what the contract says, and the scenario fails until the harness is
 * fixed.
 *
 * A trace that cannot give such a scenario is refused, naming the line (and the JSON path inside
 * it) at fault: a `max_turns` below 1, annotations of the wrong shape, observations whose ids are
 * not the calls of their turn, a stop that does not agree with the replies, anything the scenario
 * decoder would refuse. `checked` also replays the scenario under the variant the trace was
 * recorded with, and refuses it unless it passes.
 *
 * @since 0.1.0
 */
import { Compactor } from "@agent-harness/compaction"
import { Loop, type Message, type Outcome, Trace } from "@agent-harness/executor"
import { Effect, Option, Result, SchemaParser } from "effect"
import * as Conversation from "./Conversation.ts"
import * as Criteria from "./internal/criteria.ts"
import * as Paths from "./internal/paths.ts"
import * as JsonText from "./JsonText.ts"
import * as Permissions from "./Permissions.ts"
import type * as ScenarioFile from "./ScenarioFile.ts"
import { firstProblem, InvalidScenario, parse, parseOptions, pathText } from "./ScenarioFile.ts"
import * as Variant from "./Variant.ts"
import type * as Verdict from "./Verdict.ts"

const decodeEvent = SchemaParser.decodeUnknownResult(Trace.Event)

type Event = Trace.Event

/** Whether a line is an event declared outside the core (a `type` the core's `Event` does not have). */
const isEdgeEvent = (json: unknown): boolean =>
  typeof json === "object" &&
  json !== null &&
  "type" in json &&
  typeof json.type === "string" &&
  !Trace.isEvent({ type: json.type })

/** `line 3` or `line 3: result.tool_use_id`. */
const at = (line: number, path?: string): string =>
  path === undefined || path === "(root)" ? `line ${line}` : `line ${line}: ${path}`

const decodeCompacted = SchemaParser.decodeUnknownResult(Compactor.Compacted)

/** A compaction the trace recorded (`context.compacted`), with its line. */
type Compaction = readonly [number, typeof Compactor.Compacted.Type]

const parseLines = (
  file: string,
  text: string
): Result.Result<
  { readonly events: ReadonlyArray<readonly [number, Event]>; readonly compactions: ReadonlyArray<Compaction> },
  InvalidScenario
> => {
  const events: Array<readonly [number, Event]> = []
  const compactions: Array<Compaction> = []
  const lines = JsonText.withoutBom(text).split("\n")
  for (const [i, raw] of lines.entries()) {
    const line = i + 1
    if (raw.trim() === "") continue
    const json = JsonText.parse(raw)
    if (Result.isFailure(json)) {
      const { path, problem } = json.failure
      return Result.fail(
        new InvalidScenario({
          file,
          path: at(line, path.length === 0 ? undefined : pathText(path)),
          problem: problem.replace(/^invalid JSON \(line 1, /, "invalid JSON (")
        })
      )
    }
    // An old trace (`start`, `observation`, ...) reads as a new one.
    const event = Trace.upgrade(json.success)
    // A compaction becomes its turn's pin; another edge's event (`permission.decided`,
    // `model.retried`, a plan session's) is not replayed.
    if (Compactor.compacted.is(event as Trace.Entry)) {
      const decoded = decodeCompacted(event, parseOptions)
      if (Result.isFailure(decoded)) {
        const { path, problem } = firstProblem(decoded.failure)
        return Result.fail(new InvalidScenario({ file, path: at(line, path), problem }))
      }
      compactions.push([line, decoded.success])
      continue
    }
    if (isEdgeEvent(event)) continue
    const decoded = decodeEvent(event, parseOptions)
    if (Result.isFailure(decoded)) {
      const { path, problem } = firstProblem(decoded.failure)
      return Result.fail(new InvalidScenario({ file, path: at(line, path), problem }))
    }
    events.push([line, decoded.success])
  }
  return Result.succeed({ events, compactions })
}

const isRecordOfStrings = (u: unknown): u is Record<string, string> =>
  typeof u === "object" &&
  u !== null &&
  !Array.isArray(u) &&
  Object.values(u as Record<string, unknown>).every((v) => typeof v === "string")

/**
 * A captured scenario, as the JSON of a `conversation` scenario file.
 *
 * @since 0.1.0
 */
export interface Captured extends Readonly<Record<string, unknown>> {
  /** Format 1. */
  readonly format: 1
  /** Always a `conversation`. */
  readonly kind: "conversation"
  /** Each model call of the trace: its reply, and the observations its calls got. */
  readonly turns: ReadonlyArray<{ readonly reply: ReadonlyArray<unknown>; readonly expect?: ReadonlyArray<unknown> }>
}

/** Where each part of the captured scenario comes from in the trace. */
interface Sources {
  start: number
  locale?: number
  files?: number
  commands?: number
  finalFiles?: number
  tools?: number
  mcp?: number
  policy?: number
  approvals?: number
  untrustedOutput?: number
  compaction?: number
  variant?: number
  stop?: number
  /** Per turn: the reply's line, and each observation's. */
  readonly turns: Array<{ readonly reply: number; readonly observations: Array<number> }>
}

/** A captured scenario with where it came from, the variant it was recorded under, and the run's first files. */
interface Analysis {
  readonly captured: Captured
  readonly sources: Sources
  readonly variant: string
  /** The files at the start of the run (inline in the scenario, or for its root folder). */
  readonly files: Readonly<Record<string, string>>
}

/** The trace line (and path in it) a JSON path of the captured scenario comes from. */
const origin = (sources: Sources, path: ReadonlyArray<string | number>): string => {
  const [head, second, third, ...rest] = path
  const tail = (prefix: string, keys: ReadonlyArray<string | number | undefined>) =>
    pathText([prefix, ...keys.filter((k): k is string | number => k !== undefined)])
  switch (head) {
    case "maxTurns":
      return at(sources.start, "max_turns")
    case "breaker.tripped":
      return at(sources.start, tail("breaker", path.slice(1)))
    case "system":
    case "user":
      return at(sources.start, "messages")
    case "locale":
      return sources.locale === undefined ? "(trace)" : at(sources.locale, "value")
    case "files":
    case "root":
      return sources.files === undefined ? "(trace)" : at(sources.files, tail("value", path.slice(1)))
    case "commands":
      return sources.commands === undefined
        ? "(trace)"
        : at(
            sources.commands,
            tail(
              "value",
              path.slice(1).map((key) => (key === "timeout_ms" ? "timeoutMs" : key))
            )
          )
    case "tools":
      return sources.tools === undefined ? "(trace)" : at(sources.tools, tail("value", path.slice(1)))
    case "mcp":
      return sources.mcp === undefined ? "(trace)" : at(sources.mcp, tail("value", path.slice(1)))
    case "policy":
      return sources.policy === undefined ? "(trace)" : at(sources.policy, tail("value", path.slice(1)))
    case "approvals":
      return sources.approvals === undefined ? "(trace)" : at(sources.approvals, tail("value", path.slice(1)))
    case "untrustedOutput":
      return sources.untrustedOutput === undefined ? "(trace)" : at(sources.untrustedOutput, "value")
    case "compaction":
      return sources.compaction === undefined ? "(trace)" : at(sources.compaction, tail("value", path.slice(1)))
    case "outcome":
      if (second === "files") {
        return sources.finalFiles === undefined ? "(trace)" : at(sources.finalFiles, tail("value", path.slice(2)))
      }
      return sources.stop === undefined ? "(trace)" : at(sources.stop, second === "stop" ? "stop" : "text")
    case "turns": {
      const turn = typeof second === "number" ? sources.turns[second] : undefined
      if (turn === undefined) return "(trace)"
      const [index, ...inside] = rest
      if (third === "expect" && typeof index === "number") {
        const line = turn.observations[index]
        return line === undefined ? at(turn.reply) : at(line, tail("result", inside))
      }
      return at(turn.reply, third === "reply" ? tail("reply", rest) : undefined)
    }
    default:
      return "(trace)"
  }
}

const idsOf = (reply: ReadonlyArray<unknown>): ReadonlyArray<string> =>
  reply.flatMap((b) => {
    if (typeof b !== "object" || b === null) return []
    const block = b as { readonly type?: unknown; readonly id?: unknown }
    return block.type === "tool_use" && typeof block.id === "string" ? [block.id] : []
  })

const textOf = (reply: ReadonlyArray<unknown>): string | undefined => {
  const texts = reply.flatMap((b) => {
    if (typeof b !== "object" || b === null) return []
    const block = b as { readonly type?: unknown; readonly text?: unknown }
    return block.type === "text" && typeof block.text === "string" ? [block.text] : []
  })
  return texts.length === 0 ? undefined : texts.join(" ")
}

/**
 * The trace's `commands` annotation (`Commands.wire`: `{ shell, network, env, timeout_ms,
 * memory_bytes }`; the `timeoutMs` of traces before 0.2 read too, and a trace without
 * `memory_bytes` gives a scenario without it) as the scenario's `commands`, in the file's spelling; the problem when it
 * is not an object. Its values are checked when the scenario is decoded.
 */
const commandsOf = (value: unknown): Result.Result<Readonly<Record<string, unknown>>, string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Result.fail(`commands must be an object { shell, network, env, timeoutMs }, got ${JSON.stringify(value)}`)
  }
  const { timeoutMs, ...rest } = value as Readonly<Record<string, unknown>>
  return Result.succeed(timeoutMs === undefined ? rest : { ...rest, timeout_ms: timeoutMs })
}

/**
 * The trace as a scenario. With `root`, the scenario names that folder (relative to its own)
 * instead of holding the run's first files inline: the caller writes them there.
 */
const analyse = (file: string, text: string, root?: string): Result.Result<Analysis, InvalidScenario> => {
  const parsed = parseLines(file, text)
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  const fail = (path: string, problem: string) => Result.fail(new InvalidScenario({ file, path, problem }))
  let locale: unknown = "en"
  let files: unknown = {}
  let finalFiles: unknown
  let tools: unknown
  let mcp: unknown
  let policy: unknown
  let approvals: unknown
  let untrustedOutput: unknown
  let compaction: unknown
  let commands: Readonly<Record<string, unknown>> | undefined
  let variant: string = Variant.defaultVariant.name
  let start: Extract<Event, { type: "run.started" }> | undefined
  let stop: Extract<Event, { type: "run.ended" }> | undefined
  let streamed = false
  const sources: Sources = { start: 0, turns: [] }
  const turns: Array<{
    reply: ReadonlyArray<unknown>
    expect?: Array<Record<string, unknown>>
    compacted?: { readonly elided?: ReadonlyArray<string>; readonly dropped?: ReadonlyArray<string> }
  }> = []
  for (const [line, event] of parsed.success.events) {
    switch (event.type) {
      case "trace.annotated":
        if (event.key === Conversation.annotations.locale) {
          if (event.value !== "en" && event.value !== "es")
            return fail(at(line, "value"), `locale must be "en" or "es"`)
          locale = event.value
          sources.locale = line
        } else if (event.key === Conversation.annotations.files || event.key === Conversation.annotations.finalFiles) {
          if (!isRecordOfStrings(event.value)) return fail(at(line, "value"), `${event.key} must map paths to contents`)
          if (event.key === Conversation.annotations.files) {
            files = event.value
            sources.files = line
          } else {
            finalFiles = event.value
            sources.finalFiles = line
          }
        } else if (event.key === Conversation.annotations.tools) {
          if (typeof event.value !== "object" || event.value === null || Array.isArray(event.value)) {
            return fail(
              at(line, "value"),
              `tools must be an object of scripted tools, got ${JSON.stringify(event.value)}`
            )
          }
          tools = event.value
          sources.tools = line
        } else if (event.key === Conversation.annotations.mcp) {
          if (!Array.isArray(event.value)) {
            return fail(
              at(line, "value"),
              `mcp must be a list of MCP server declarations, got ${JSON.stringify(event.value)}`
            )
          }
          mcp = event.value
          sources.mcp = line
        } else if (event.key === Conversation.annotations.policy) {
          // Decoded with the scenario (Permissions), naming this line's path when it is wrong.
          policy = event.value
          sources.policy = line
        } else if (event.key === Conversation.annotations.approvals) {
          approvals = event.value
          sources.approvals = line
        } else if (event.key === Conversation.annotations.untrustedOutput) {
          untrustedOutput = event.value
          sources.untrustedOutput = line
        } else if (event.key === Conversation.annotations.compaction) {
          compaction = event.value
          sources.compaction = line
        } else if (event.key === Conversation.annotations.commands) {
          const declared = commandsOf(event.value)
          if (Result.isFailure(declared)) return fail(at(line, "value"), declared.failure)
          commands = declared.success
          sources.commands = line
        } else if (event.key === Conversation.annotations.variant) {
          if (typeof event.value !== "string") return fail(at(line, "value"), "variant must be a variant's name")
          variant = event.value
          sources.variant = line
        }
        break
      case "run.started":
        if (start !== undefined) return fail(at(line), `a second start (the first is on line ${sources.start})`)
        if (event.max_turns < 1) {
          return fail(
            at(line, "max_turns"),
            `must be at least 1, got ${event.max_turns}: such a run cannot be replayed`
          )
        }
        start = event
        sources.start = line
        break
      case "model.requested":
        break
      case "model.replied":
        if (start === undefined) return fail(at(line), "a model reply before the start")
        if (event.turn !== turns.length + 1)
          return fail(at(line, "turn"), `turn ${event.turn}, expected turn ${turns.length + 1}`)
        if (turns.length >= start.max_turns) {
          return fail(
            at(line, "turn"),
            `turn ${event.turn} is past max_turns (${start.max_turns}, line ${sources.start})`
          )
        }
        turns.push({ reply: event.reply })
        sources.turns.push({ reply: line, observations: [] })
        if (event.streamed === true) streamed = true
        break
      case "call.started":
        break
      case "call.answered": {
        const turn = turns[event.turn - 1]
        const source = sources.turns[event.turn - 1]
        if (turn === undefined || source === undefined || event.turn !== turns.length) {
          return fail(
            at(line, "turn"),
            `an observation for turn ${event.turn}, but the last reply is turn ${turns.length}`
          )
        }
        const ids = idsOf(turn.reply)
        const index = turn.expect?.length ?? 0
        const id = ids[index]
        if (id === undefined) {
          return fail(
            at(line, "result.tool_use_id"),
            `'${event.result.tool_use_id}' is one observation too many: turn ${event.turn} (line ${source.reply}) has ${ids.length} call(s)`
          )
        }
        if (event.result.tool_use_id !== id) {
          return fail(
            at(line, "result.tool_use_id"),
            `expected '${id}' (turn ${event.turn}'s calls in order: ${ids.join(", ")}), got '${event.result.tool_use_id}'`
          )
        }
        // The observation's text, which says what each rich part is; the parts stay in the trace.
        const { type, tool_use_id, is_error, content } = event.result
        turn.expect = [...(turn.expect ?? []), { type, tool_use_id, is_error, content }]
        source.observations.push(line)
        break
      }
      case "model.failed":
        return fail(
          at(line),
          `the model failed (${event.message}): the run did not finish, so there is nothing to replay`
        )
      case "run.ended":
        stop = event
        sources.stop = line
        break
    }
  }
  if (start === undefined) return fail("(trace)", "no start event: not a trace of the loop")
  if (stop === undefined) return fail("(trace)", "no stop event: the run did not finish")
  if (commands !== undefined && root === undefined) {
    return fail(
      at(sources.commands ?? 0, "value"),
      "the run had commands, which replay only over a real folder, not over inline files: capture it over a root folder that holds the run's first files (Capture.checkedRooted)"
    )
  }
  const stopLine = sources.stop ?? 0
  if (stop.turns !== turns.length) {
    return fail(at(stopLine, "turns"), `${stop.turns}, but the trace has ${turns.length} model reply(ies)`)
  }
  for (const [i, turn] of turns.entries()) {
    const ids = idsOf(turn.reply)
    const seen = turn.expect?.length ?? 0
    const source = sources.turns[i]
    const last = i === turns.length - 1
    // Every call of a turn is answered before the next reply; the last turn's calls only when it
    // stopped at the turn cap or at its breaker (a run that ends has no calls in its last reply).
    if (seen < ids.length && (!last || stop.stop === "turn_cap" || stop.stop === "repeated_call")) {
      return fail(at(source?.reply ?? 0, "reply"), `call '${ids[seen]}' of turn ${i + 1} has no observation`)
    }
    if (ids.length > 0) turn.expect ??= []
  }
  const last = turns.at(-1)
  if (stop.stop === "end" && last !== undefined && idsOf(last.reply).length > 0) {
    return fail(at(stopLine, "stop"), `"end", but the last reply (turn ${turns.length}) calls tools`)
  }
  if (stop.stop === "repeated_call" && start.breaker?.action !== "stop") {
    return fail(
      at(stopLine, "stop"),
      `"repeated_call", but the start (line ${sources.start}) has no breaker set to stop`
    )
  }
  if (stop.stop === "turn_cap" && turns.length !== start.max_turns) {
    return fail(at(stopLine, "stop"), `"turn_cap" after ${turns.length} turn(s), but max_turns is ${start.max_turns}`)
  }
  if (stop.stop === "end" && last !== undefined && stop.text !== textOf(last.reply)) {
    return fail(
      at(stopLine, "text"),
      `${JSON.stringify(stop.text)}, but the last reply's text is ${JSON.stringify(textOf(last.reply))}`
    )
  }
  // Each compaction pinned on the turn whose model call came after it.
  const compactions = parsed.success.compactions
  for (const [line, compacted] of compactions) {
    const turn = turns[compacted.turn - 1]
    if (turn === undefined) {
      return fail(
        at(line, "turn"),
        `a compaction before model call ${compacted.turn}, but the trace has ${turns.length} model reply(ies)`
      )
    }
    const summarized = compacted.removed.find((r) => r.kind === "summarized")
    if (summarized !== undefined) {
      return fail(
        at(line, "removed"),
        "turns summarized by a model: a scenario file replays the default strategy (elide, drop), not a summarizer"
      )
    }
    const idsOfKind = (kind: "elided" | "dropped") =>
      [...new Set(compacted.removed.filter((r) => r.kind === kind).flatMap((r) => r.tool_use_ids))].sort()
    const elided = idsOfKind("elided")
    const dropped = idsOfKind("dropped")
    turn.compacted = { ...(elided.length === 0 ? {} : { elided }), ...(dropped.length === 0 ? {} : { dropped }) }
  }
  // Settings as the run annotated them; a trace without them (a run the CLI made) gives the window it saw.
  const firstCompaction = compactions[0]?.[1]
  const settings = compaction ?? (firstCompaction === undefined ? undefined : { window: firstCompaction.window })
  const opening = start.messages
  const system = opening.filter((m) => m.role === "system")
  const user = opening.filter((m) => m.role === "user")
  const first = user[0]
  if (
    system.length > 1 ||
    user.length > 1 ||
    opening.some((m) => m.role === "assistant") ||
    (first !== undefined && typeof first.content !== "string")
  ) {
    return fail(
      at(sources.start, "messages"),
      "a conversation scenario opens with at most one system and one user text message"
    )
  }
  const systemText = system[0]?.content
  const captured: Captured = {
    format: 1,
    kind: "conversation",
    name: `captured from ${file.split(/[\\/]/).pop() ?? file}`,
    locale,
    ...(typeof systemText === "string" ? { system: systemText } : {}),
    ...(first !== undefined && typeof first.content === "string" ? { user: first.content } : {}),
    ...(root === undefined ? { files } : { root }),
    ...(tools === undefined ? {} : { tools }),
    ...(mcp === undefined ? {} : { mcp }),
    ...(policy === undefined ? {} : { policy }),
    ...(approvals === undefined ? {} : { approvals }),
    ...(untrustedOutput === undefined ? {} : { untrustedOutput }),
    ...(commands === undefined ? {} : { commands }),
    maxTurns: start.max_turns,
    ...(start.breaker === undefined ? {} : { breaker: start.breaker }),
    ...(settings === undefined ? {} : { compaction: settings }),
    // A streamed run replays streamed: the same replies, folded from parts as they were.
    ...(streamed ? { stream: true } : {}),
    turns,
    outcome: {
      stop: stop.stop,
      ...(stop.text === undefined ? {} : { text: stop.text }),
      ...(finalFiles === undefined ? {} : { files: finalFiles })
    }
  }
  // The scenario as `harness run` will read it: any problem is named where the trace has it.
  const decoded = parse("captured.json", JSON.stringify(captured))
  if (Result.isFailure(decoded)) {
    const json = JsonText.parse(JSON.stringify(captured))
    const path = Result.isFailure(json) ? json.failure.path : pathOf(decoded.failure.path)
    return fail(origin(sources, path), decoded.failure.problem)
  }
  return Result.succeed({ captured, sources, variant, files: files as Readonly<Record<string, string>> })
}

/** `turns[2].reply[0].id` back into keys and indexes. */
const pathOf = (text: string): ReadonlyArray<string | number> =>
  text === "(root)"
    ? []
    : [...text.matchAll(/([A-Za-z_$][\w$]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)].map((m) =>
        m[1] !== undefined ? m[1] : m[2] !== undefined ? Number(m[2]) : (JSON.parse(`"${m[3] ?? ""}"`) as string)
      )

/**
 * Turns a trace's text into a conversation scenario (as JSON), or says which line is wrong (and
 * where in it).
 *
 * @since 0.1.0
 */
export const capture = (file: string, text: string): Result.Result<Captured, InvalidScenario> =>
  Result.map(analyse(file, text), (analysis) => analysis.captured)

/**
 * A captured scenario that runs over a root folder instead of inline files: the scenario (its
 * `root` names the folder, relative to the scenario file's folder), and the run's first files,
 * which the caller writes there.
 *
 * @since 0.2.0
 */
export interface Rooted {
  /** The scenario, as the JSON of a conversation file with `root`. */
  readonly scenario: Captured
  /** The files at the start of the run, as the trace recorded them: the root folder's tree. */
  readonly files: Readonly<Record<string, string>>
}

/**
 * `capture` over a root folder: the scenario names `root` (a folder relative to the scenario
 * file's folder) instead of holding the run's first files, which come with it to be written
 * there. A run that had commands (the trace's `commands` annotation, as `harness agent
 * --commands` and a scenario with `commands` record it) replays only so: its commands run in a
 * real folder.
 *
 * @since 0.2.0
 */
export const rooted = (file: string, text: string, root: string): Result.Result<Rooted, InvalidScenario> =>
  Result.map(analyse(file, text, root), (analysis) => ({ scenario: analysis.captured, files: analysis.files }))

/** Replays an analysed trace from `scenario` under its variant: the captured scenario when it passes. */
const replayed = (
  file: string,
  analysis: Analysis,
  variants: Readonly<Record<string, Variant.Variant>>,
  scenario: string
): Effect.Effect<Captured, InvalidScenario> =>
  Effect.gen(function* () {
    const { captured, sources } = analysis
    const variant = variants[analysis.variant]
    if (variant === undefined) {
      return yield* new InvalidScenario({
        file,
        path: at(sources.variant ?? 0, "value"),
        problem: `recorded under the variant '${analysis.variant}', which this harness does not know: its replay cannot be checked`
      })
    }
    const decoded = parse("captured.json", JSON.stringify(captured))
    if (Result.isFailure(decoded) || decoded.success.kind !== "conversation") {
      return yield* new InvalidScenario({ file, path: "(trace)", problem: "the captured scenario does not decode" })
    }
    const spec = decoded.success.file
    const permissions = yield* Effect.serviceOption(Permissions.Permissions)
    if (spec.policy !== undefined && Option.isSome(permissions)) {
      const { policy, approvals, untrustedOutput } = spec
      yield* Effect.mapError(
        permissions.value.check({ policy, approvals, untrustedOutput }),
        (error) => new InvalidScenario({ file, path: origin(sources, pathOf(error.at)), problem: error.problem })
      )
    }
    const verdict = yield* Conversation.run(decoded.success, scenario, { variant })
    const failure = verdict.failures[0]
    if (failure === undefined) return captured
    const turn = failure.turn === undefined ? undefined : sources.turns[failure.turn - 1]
    const index =
      turn === undefined
        ? -1
        : idsOf(captured.turns[(failure.turn ?? 1) - 1]?.reply ?? []).indexOf(failure.tool_use_id ?? "")
    const line =
      turn === undefined
        ? (sources.stop ?? sources.start)
        : index >= 0
          ? (turn.observations[index] ?? turn.reply)
          : turn.reply
    return yield* new InvalidScenario({
      file,
      path: at(line),
      problem: `the captured scenario does not replay under the variant '${variant.name}': ${failure.message.split("\n").join(" ")}`
    })
  })

/**
 * `capture`, then the proof that the scenario replays: it runs, under the variant the trace was
 * recorded with (`variants` holds the names it may be; the built-in ones by default), and must
 * pass. A run that does not is refused, naming the trace line where it leaves the recording. A
 * scenario that declares MCP servers (the trace's `mcp` annotation, kept as they were mounted)
 * mounts them again to replay, with the `Mounter` of the context; without one it is refused.
 * A run behind a permission gate (the trace's `policy`, `approvals` and `untrusted_output`
 * annotations) replays behind the same gate, made by the context's `Permissions`: a policy or
 * approvals that do not decode are refused at their trace line and path. A run that had
 * commands is refused here, at its `commands` line: it replays over a real folder
 * (`checkedRooted`).
 *
 * @since 0.1.0
 */
export const checked = (
  file: string,
  text: string,
  variants: Readonly<Record<string, Variant.Variant>> = Variant.byName
): Effect.Effect<Captured, InvalidScenario> =>
  Effect.flatMap(Effect.fromResult(analyse(file, text)), (analysis) => replayed(file, analysis, variants, file))

/**
 * `rooted`, then the proof that it replays, as `checked` gives it: the scenario runs as the file
 * `options.scenario`, whose folder must already hold its root (`options.root`, the run's first
 * files written there: a temporary twin of where it will be kept, or the place itself), with the
 * context's `Roots` (which copies it afresh) and `Commands` (which runs the commands the run
 * had, sandboxed: the trace's `commands` annotation, every default filled in). It must pass.
 *
 * @since 0.2.0
 */
export const checkedRooted = (
  file: string,
  text: string,
  options: {
    /** The root folder's name, relative to the scenario file's folder. */
    readonly root: string
    /** The scenario file the replay runs as: its folder holds `root`, already written. */
    readonly scenario: string
    /** The variants the trace's may be (default: the built-in ones). */
    readonly variants?: Readonly<Record<string, Variant.Variant>> | undefined
  }
): Effect.Effect<Rooted, InvalidScenario> =>
  Effect.gen(function* () {
    const analysis = yield* Effect.fromResult(analyse(file, text, options.root))
    const scenario = yield* replayed(file, analysis, options.variants ?? Variant.byName, options.scenario)
    return { scenario, files: analysis.files }
  })

/**
 * How `trial` and `checkedTrial` capture a live trial: where the scenario will be written, and
 * what names the trial.
 *
 * @since 0.2.0
 */
export interface TrialOptions {
  /** Where the scenario will be written: a `root` is made relative to its folder. */
  readonly out: string
  /** The trial's index among the case's trials, for the scenario's name. */
  readonly trial?: number | undefined
  /** The trace's path, for errors (default: `<liveFile> (trace)`). */
  readonly trace?: string | undefined
}

/** A trial's capture: the scenario, the trace lines it came from, and the trial as the trace tells it. */
interface TrialAnalysis extends Analysis {
  /** The live trial as the criterion reads it, told by the trace. */
  readonly run: Criteria.Run<Criteria.Ended>
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** The trial's run as the criterion reads it, from the captured turns (each observation a replayed outcome). */
const endedOf = (captured: Captured, stop: Verdict.Stop, text: string | undefined): Criteria.Ended => ({
  stop: stop === "diverged" ? "end" : stop,
  text,
  turns: captured.turns.map((turn, i) => {
    const reply = turn.reply as ReadonlyArray<Message.ReplyBlock>
    const calls = reply.flatMap((b) => (b.type === "tool_use" ? [b] : []))
    const outcomes = (turn.expect ?? []).flatMap((e, j): ReadonlyArray<Outcome.Outcome> => {
      const seen = e as { readonly is_error?: unknown; readonly content?: unknown }
      const call = calls[j]
      if (call === undefined || typeof seen.content !== "string") return []
      const isError = seen.is_error === true
      const original = isError ? "Failed" : "Succeeded"
      return [{ _tag: "Replayed", id: call.id, name: call.name, original, isError, content: seen.content }]
    })
    return { turn: i + 1, reply, outcomes }
  })
})

const analyseTrial = (
  live: ScenarioFile.Live,
  liveFile: string,
  text: string,
  options: TrialOptions
): Result.Result<TrialAnalysis, InvalidScenario> => {
  const file = options.trace ?? `${liveFile} (trace)`
  const fail = (path: string, problem: string) => Result.fail(new InvalidScenario({ file, path, problem }))
  if (JsonText.withoutBom(text).trim() === "") return fail("(trace)", "empty: no trial was traced")
  const spec = live.file
  // A root is kept as a folder when the scenario's folder holds it; otherwise the copy's files as the trace shows them.
  const root =
    spec.root === undefined
      ? undefined
      : Paths.relative(Paths.dirname(options.out), Paths.join(Paths.dirname(liveFile), spec.root))
  const keepsRoot = root !== undefined && root !== "" && root !== ".." && !root.startsWith("../")
  if (spec.commands !== undefined && !keepsRoot) {
    return fail(
      "(trace)",
      `the live case declares commands, which replay only over its root folder, and ${JSON.stringify(options.out)} is not in a folder that holds it: write the scenario next to ${liveFile}`
    )
  }
  const analysis = analyse(file, text, keepsRoot ? root : undefined)
  if (Result.isFailure(analysis)) {
    const { path, problem } = analysis.failure
    return path === "(trace)" && problem.startsWith("no start event")
      ? fail(
          path,
          "no start event: the trial did not run (its environment was not made?), so there is nothing to replay"
        )
      : Result.fail(analysis.failure)
  }
  const { captured, sources } = analysis.success
  const startLine = at(sources.start, "messages")
  const wrongCase = (what: string, line: string, traced: unknown, declared: unknown) =>
    fail(
      line,
      `the trace's ${what} is ${Criteria.show(traced)}, the live case's is ${Criteria.show(declared)}: not a trace of a trial of ${liveFile}`
    )
  if (captured.system !== spec.system) return wrongCase("system prompt", startLine, captured.system, spec.system)
  if (captured.user !== spec.user) return wrongCase("prompt", startLine, captured.user, spec.user)
  const locale = spec.locale ?? "en"
  if (captured.locale !== locale) return wrongCase("locale", origin(sources, ["locale"]), captured.locale, locale)
  const maxTurns = spec.maxTurns ?? Loop.defaultMaxTurns
  if (captured.maxTurns !== maxTurns)
    return wrongCase("max_turns", at(sources.start, "max_turns"), captured.maxTurns, maxTurns)
  if (spec.root === undefined && !sameJson(captured.files, spec.files ?? {})) {
    return wrongCase("files", origin(sources, ["files"]), captured.files, spec.files ?? {})
  }
  const outcome = captured.outcome as {
    readonly stop: Verdict.Stop
    readonly text?: string
    readonly files?: Readonly<Record<string, string>>
  }
  if (outcome.files === undefined) {
    return fail(
      "(trace)",
      `no '${Conversation.annotations.finalFiles}' annotation: the trial's files after it are not known, so it cannot be judged`
    )
  }
  const where = options.trial === undefined ? "a trial" : `trial ${options.trial}`
  const { system, user, files, mcp, approvals, breaker, stream } = captured
  const scenario: Captured = {
    format: 1,
    kind: "conversation",
    name: `${live.name}: captured from ${where} of ${liveFile} (variant ${analysis.success.variant})`,
    locale,
    ...(system === undefined ? {} : { system }),
    ...(user === undefined ? {} : { user }),
    ...(keepsRoot ? { root } : { files }),
    ...(spec.tools === undefined ? {} : { tools: spec.tools }),
    // As mounted (`cwd` absolute), so the scenario mounts them from wherever it is written.
    ...(mcp === undefined ? (spec.mcp === undefined ? {} : { mcp: spec.mcp }) : { mcp }),
    ...(spec.policy === undefined ? {} : { policy: spec.policy }),
    ...(approvals === undefined ? {} : { approvals }),
    ...(spec.untrustedOutput === undefined ? {} : { untrustedOutput: spec.untrustedOutput }),
    ...(spec.commands === undefined ? {} : { commands: spec.commands }),
    maxTurns,
    ...(breaker === undefined ? {} : { breaker }),
    ...(stream === undefined ? {} : { stream }),
    turns: captured.turns,
    pass: spec.pass,
    outcome: captured.outcome
  }
  const decoded = parse(options.out, JSON.stringify(scenario))
  if (Result.isFailure(decoded)) {
    return fail(origin(sources, pathOf(decoded.failure.path)), decoded.failure.problem)
  }
  const run = { ended: Result.succeed(endedOf(scenario, outcome.stop, outcome.text)), files: outcome.files }
  return Result.succeed({
    captured: scenario,
    sources,
    variant: analysis.success.variant,
    files: analysis.success.files,
    run
  })
}

/**
 * The trace of one trial of a live case (the JSON Lines a `Trace.jsonl` writes while
 * `LiveCase.trial` runs) as a conversation scenario that replays it: the replies as they came,
 * the observations the model was shown, the live case's environment (its files, or its `root`
 * made relative to the folder of `options.out` when that folder holds it, else the files of the
 * trial's copy as the trace shows them; its tools; its MCP servers as mounted; its policy,
 * untrusted output, locale, prompts and turn cap) and its `pass` criterion unchanged, named
 * after the trial. So it fails as the trial did, with the scripted model.
 *
 * Refused in words, naming the trace line (and the JSON path in it): an empty trace, a trial
 * that did not run or ended with a model failure (no reply to replay), two trials in one trace,
 * a trace whose prompt, locale, files or turn cap are not the live case's, and anything
 * `capture` refuses.
 *
 * @since 0.2.0
 */
export const trial = (
  live: ScenarioFile.Live,
  liveFile: string,
  traceText: string,
  options: TrialOptions
): Result.Result<Captured, InvalidScenario> => {
  try {
    return Result.map(analyseTrial(live, liveFile, traceText, options), (analysis) => analysis.captured)
  } catch (thrown) {
    return Result.fail(unreadable(liveFile, options, thrown))
  }
}

const unreadable = (liveFile: string, options: TrialOptions, thrown: unknown): InvalidScenario =>
  new InvalidScenario({
    file: options.trace ?? `${liveFile} (trace)`,
    path: "(trace)",
    problem: `cannot be read (${thrown instanceof Error ? thrown.message : "unknown"})`
  })

/**
 * A live trial captured and proved: the scenario, the verdict of its replay, and the failures it
 * had to fail with (the live trial's failing checks).
 *
 * @since 0.2.0
 */
export interface CheckedTrial {
  /** The captured scenario, as the JSON of a conversation file. */
  readonly scenario: Captured
  /** The replay's verdict: failed with exactly the trial's failing checks (passed when it passed). */
  readonly verdict: Verdict.Verdict<Verdict.ConversationOutcome>
  /** The live trial's failing checks, as `pass` failures. */
  readonly expected: ReadonlyArray<Verdict.Failure>
}

const oneLine = (failures: ReadonlyArray<Verdict.Failure>): string =>
  failures.length === 0 ? "(passes)" : failures.map((f) => `[${f.kind}] ${f.message.split("\n").join(" ")}`).join("; ")

/**
 * `trial`, then the proof that the scenario fails the same way: it is replayed with the scripted
 * model under the variant the trace was recorded with (`variants` holds the names it may be;
 * the built-in ones by default), with `options.out` as its file (its `root` is read from there:
 * a `Roots` in the context), and its verdict's failures must be exactly the live trial's failing
 * checks (kind `pass`, same messages, in order), none other: a passing trial's scenario must
 * pass. The trial's failures are `options.judged` (the `verdict` of `LiveCase.trial`) when
 * given, else the case's criterion judged over the trace. A replay that fails otherwise, or
 * passes, is refused with both sides shown.
 *
 * @since 0.2.0
 */
export const checkedTrial = (
  live: ScenarioFile.Live,
  liveFile: string,
  traceText: string,
  options: TrialOptions & {
    /** The live trial's verdict (`LiveCase.trial`'s `verdict`); by default judged over the trace. */
    readonly judged?: Criteria.Judged | undefined
    /** The variants the trace's may be (default: the built-in ones). */
    readonly variants?: Readonly<Record<string, Variant.Variant>> | undefined
  }
): Effect.Effect<CheckedTrial, InvalidScenario> =>
  Effect.gen(function* () {
    const file = options.trace ?? `${liveFile} (trace)`
    const analysis = yield* Effect.try({
      try: () => analyseTrial(live, liveFile, traceText, options),
      catch: (thrown) => unreadable(liveFile, options, thrown)
    })
    if (Result.isFailure(analysis)) return yield* analysis.failure
    const { captured, sources, run } = analysis.success
    const variants: Readonly<Record<string, Variant.Variant>> = options.variants ?? Variant.byName
    const variant = variants[analysis.success.variant]
    if (variant === undefined) {
      return yield* new InvalidScenario({
        file,
        path: at(sources.variant ?? 0, "value"),
        problem: `recorded under the variant '${analysis.success.variant}', which this harness does not know: its replay cannot be checked`
      })
    }
    const decoded = parse(options.out, JSON.stringify(captured))
    if (Result.isFailure(decoded) || decoded.success.kind !== "conversation") {
      return yield* new InvalidScenario({ file, path: "(trace)", problem: "the captured scenario does not decode" })
    }
    const expected = Criteria.verdictFailures(options.judged ?? Criteria.evaluate(live.file.pass, run))
    const verdict = yield* Conversation.run(decoded.success, options.out, { variant })
    const same =
      verdict.failures.length === expected.length &&
      verdict.failures.every((f, i) => f.kind === expected[i]?.kind && f.message === expected[i]?.message)
    if (same) return { scenario: captured, verdict, expected }
    return yield* new InvalidScenario({
      file,
      path: "(trace)",
      problem: `the captured scenario does not fail the same way under the variant '${variant.name}'\n  the trial:  ${oneLine(expected)}\n  the replay: ${oneLine(verdict.failures)}`
    })
  })
