/**
 * The scripted model of the regression tests: it replies from a script and checks, before each reply,
 * that it is shown exactly the observations the script expects. It works as the loop's `Model`
 * and as an effect/ai `LanguageModel`.
 *
 * @since 0.1.0
 */
import { type Message, Model, type ReplyPart } from "@agent-harness/executor"
import { Effect, Layer, Ref, Result, Stream } from "effect"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Chunking from "./Chunking.ts"
import { ScriptDivergence, ScriptExhausted, ScriptUnfinished, showResult } from "./Divergence.ts"
import * as LanguageModelParts from "./LanguageModelParts.ts"
import { matches, type Script, type ScriptInvalid, StreamCut, type Turn, unchecked, validate } from "./Script.ts"

const showMessage = (message: Message.Message | undefined): string =>
  message === undefined ? "(nothing)" : JSON.stringify(message)

/**
 * Compares what the model is shown with what turn `turn` expects. `undefined` (a turn without
 * tool calls) and `Script.unchecked` check nothing.
 *
 * @since 0.1.0
 */
export const check = (
  turn: number,
  expected: Turn["expect"],
  seen: ReadonlyArray<Message.ToolResultBlock>
): Effect.Effect<void, ScriptDivergence> => {
  if (expected === undefined || expected === unchecked) return Effect.void
  const count = Math.max(expected.length, seen.length)
  for (let i = 0; i < count; i++) {
    const e = expected[i]
    const s = seen[i]
    if (e !== undefined && s !== undefined && matches(e, s)) continue
    const detail =
      e === undefined
        ? `an unexpected result (the script expects ${expected.length})`
        : s === undefined
          ? `a missing result (the script expects ${expected.length}, the model was shown ${seen.length})`
          : e.tool_use_id !== s.tool_use_id
            ? `a result for another call at position ${i + 1}`
            : "a different observation"
    return Effect.fail(
      new ScriptDivergence({
        turn,
        toolUseId: e?.tool_use_id ?? s?.tool_use_id,
        expected: showResult(e),
        seen: showResult(s),
        detail
      })
    )
  }
  return Effect.void
}

const sameOpening = (
  script: Script,
  messages: ReadonlyArray<Message.Message>
): Effect.Effect<void, ScriptDivergence> => {
  for (let i = 0; i < Math.max(script.messages.length, messages.length); i++) {
    const e = script.messages[i]
    const s = messages[i]
    if (JSON.stringify(e) !== JSON.stringify(s)) {
      return Effect.fail(
        new ScriptDivergence({
          turn: 1,
          toolUseId: undefined,
          expected: showMessage(e),
          seen: showMessage(s),
          detail: `opening message ${i + 1} differs`
        })
      )
    }
  }
  return Effect.void
}

const lastResults = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Message.ToolResultBlock> => {
  const last = messages[messages.length - 1]
  if (last === undefined || last.role !== "user" || typeof last.content === "string") return []
  return last.content.filter((b): b is Message.ToolResultBlock => b.type === "tool_result")
}

/**
 * The turn a player gives: its number (from 1), its reply, and where its stream is cut.
 *
 * @since 0.2.0
 */
export interface Played {
  /** The turn, from 1. */
  readonly turn: number
  /** Its reply, as the script gives it. */
  readonly reply: ReadonlyArray<Message.ReplyBlock>
  /** Where its stream is cut, when the script cuts it. */
  readonly cut?: Turn["cut"]
}

/**
 * A script player: `next` checks what it is shown and gives the next reply; `finish` checks
 * the end. Shared by the `Model` and the `LanguageModel` faces. The first `next` fails with
 * `ScriptInvalid` when the script cannot be played (`Script.validate`), before any reply.
 *
 * @since 0.1.0
 */
export interface Player {
  /** Checks the results it is shown (and, on the first call, the opening) and gives the next reply. */
  readonly next: (
    shown: ReadonlyArray<Message.ToolResultBlock>,
    opening: ReadonlyArray<Message.Message> | undefined
  ) => Effect.Effect<ReadonlyArray<Message.ReplyBlock>, ScriptDivergence | ScriptExhausted | ScriptInvalid>
  /** As `next`, with the turn's number and its `cut` (the faces stream it). */
  readonly play: (
    shown: ReadonlyArray<Message.ToolResultBlock>,
    opening: ReadonlyArray<Message.Message> | undefined
  ) => Effect.Effect<Played, ScriptDivergence | ScriptExhausted | ScriptInvalid>
  /** Checks the last results and that no turn is left over, when the loop stops. */
  readonly finish: (
    shown: ReadonlyArray<Message.ToolResultBlock>
  ) => Effect.Effect<void, ScriptDivergence | ScriptUnfinished>
  /** Model calls made so far. */
  readonly used: Effect.Effect<number>
}

/**
 * A fresh player over a script.
 *
 * @since 0.1.0
 */
export const player = (script: Script): Effect.Effect<Player> =>
  Effect.map(Ref.make(0), (calls) => {
    const play: Player["play"] = (shown, opening) =>
      Effect.gen(function* () {
        const n = yield* Ref.getAndUpdate(calls, (k) => k + 1)
        if (n === 0) {
          const valid = validate(script)
          if (Result.isFailure(valid)) return yield* valid.failure
          if (opening !== undefined) yield* sameOpening(script, opening)
        }
        if (n > 0) yield* check(n, script.turns[n - 1]?.expect, shown)
        const turn = script.turns[n]
        if (turn === undefined) return yield* new ScriptExhausted({ turn: n + 1 })
        return { turn: n + 1, reply: turn.reply, ...(turn.cut === undefined ? {} : { cut: turn.cut }) }
      })
    return {
      used: Ref.get(calls),
      play,
      next: (shown, opening) => Effect.map(play(shown, opening), (played) => played.reply),
      finish: (shown) =>
        Effect.gen(function* () {
          const n = yield* Ref.get(calls)
          if (n < script.turns.length) return yield* new ScriptUnfinished({ used: n, total: script.turns.length })
          const last = script.turns[n - 1]
          if (last !== undefined && shown.length > 0) yield* check(n, last.expect, shown)
        })
    }
  })

/**
 * Options of the scripted model's faces.
 *
 * @since 0.2.0
 */
export interface Options {
  /** How a reply is cut into the parts of its stream (`Chunking.defaults` when not given). */
  readonly chunking?: Chunking.Chunking | undefined
}

/** Why a scripted turn gives no parts: the checks before it, a bad chunking, a reply that cannot be cut. */
type Refusal = ScriptDivergence | ScriptExhausted | ScriptInvalid | Chunking.InvalidChunking | Model.MalformedReply

/** A turn's parts, and the failure its cut ends them with. */
interface TurnParts {
  readonly parts: ReadonlyArray<ReplyPart.Part>
  readonly cut?: StreamCut | undefined
}

/**
 * A played turn's parts, cut as `chunking` says: the parts before its `cut`, and the cut's
 * failure, if any.
 */
const partsOfTurn = (played: Played, chunking: Chunking.Resolved): Result.Result<TurnParts, Model.MalformedReply> =>
  Result.map(Chunking.parts(played.reply, chunking), (parts) => {
    if (played.cut === undefined) return { parts }
    const afterParts = Math.min(played.cut.afterParts, parts.length)
    return { parts: parts.slice(0, afterParts), cut: new StreamCut({ turn: played.turn, afterParts }) }
  })

/**
 * Plays the next turn and gives it in parts: every check (what the model is shown, the
 * chunking, the reply) happens before the first part.
 */
const turnParts = (
  p: Player,
  chunking: Result.Result<Chunking.Resolved, Chunking.InvalidChunking>,
  shown: ReadonlyArray<Message.ToolResultBlock>,
  opening: ReadonlyArray<Message.Message> | undefined
): Effect.Effect<TurnParts, Refusal> =>
  Result.isFailure(chunking)
    ? Effect.fail(chunking.failure)
    : Effect.flatMap(p.play(shown, opening), (played) => Effect.fromResult(partsOfTurn(played, chunking.success)))

/** Plays the next turn whole: its reply, or, for a turn with a cut, the cut's failure. */
const wholeReply = (
  p: Player,
  chunking: Result.Result<Chunking.Resolved, Chunking.InvalidChunking>,
  shown: ReadonlyArray<Message.ToolResultBlock>,
  opening: ReadonlyArray<Message.Message> | undefined
): Effect.Effect<ReadonlyArray<Message.ReplyBlock>, Refusal | StreamCut> =>
  Result.isFailure(chunking)
    ? Effect.fail(chunking.failure)
    : Effect.flatMap(p.play(shown, opening), (played) =>
        played.cut === undefined
          ? Effect.succeed(played.reply)
          : Effect.flatMap(Effect.fromResult(partsOfTurn(played, chunking.success)), (turn) =>
              turn.cut === undefined ? Effect.succeed(played.reply) : Effect.fail(turn.cut)
            )
      )

/** Parts, then the cut's failure when there is one. */
const streamOf = <A, E>(parts: ReadonlyArray<A>, cut: E | undefined): Stream.Stream<A, E> =>
  cut === undefined ? Stream.fromIterable(parts) : Stream.concat(Stream.fromIterable(parts), Stream.fail(cut))

/**
 * The scripted model as the loop's `Model`: `respond` gives each turn's reply whole, `stream`
 * the same reply in parts (`Chunking`; deterministic), both after the same checks of what the
 * model is shown. A turn with a `cut` fails both: `stream` after its first `afterParts` parts,
 * `respond` at once, with `StreamCut`. It also checks, when the loop stops, that no turn is
 * left over and that the last results are the expected ones. A chunking that cannot be used
 * fails every model call with `InvalidChunking`.
 *
 * @since 0.1.0
 */
export const make = (script: Script, options?: Options): Effect.Effect<Model.Shape> =>
  Effect.map(player(script), (p) => {
    const chunking = Chunking.resolve(options?.chunking)
    return {
      respond: (request) =>
        Effect.map(wholeReply(p, chunking, lastResults(request.messages), request.messages), (content) => ({
          content
        })),
      stream: (request) =>
        Stream.unwrap(
          Effect.map(turnParts(p, chunking, lastResults(request.messages), request.messages), (turn) =>
            streamOf(turn.parts, turn.cut)
          )
        ),
      complete: (messages) => p.finish(lastResults(messages))
    }
  })

/**
 * A `Model` layer playing a script (a fresh player each time the layer is built).
 *
 * @since 0.1.0
 */
export const layer = (script: Script, options?: Options): Layer.Layer<Model.Model> =>
  Layer.effect(Model.Model, make(script, options))

/** A failure of the scripted model as the `AiError` effect/ai expects, its description the failure's message. */
const aiErrorOf =
  (method: string) =>
  (failure: { readonly message: string }): AiError.AiError =>
    AiError.make({
      module: "ScriptedModel",
      method,
      reason: new AiError.UnknownError({ description: failure.message })
    })

/**
 * The scripted model as an effect/ai `LanguageModel`, checking the `tool` messages of each
 * prompt. `generateText` gives each reply whole, `streamText` the same reply in effect/ai's
 * stream parts (`LanguageModelParts.toStreamParts` of the `Chunking` parts: text-start,
 * text-delta, text-end, tool-params-start, tool-params-delta, tool-params-end, tool-call; the
 * script has no usage, so no finish). A divergence, a bad chunking or a turn's `cut` fails it
 * with an `AiError` whose description is the failure's message (the stream after the parts
 * before the cut); `player.finish` checks the end of the script, which effect/ai cannot
 * signal by itself.
 *
 * @since 0.1.0
 */
export const languageModel = (
  script: Script,
  options?: Options
): Effect.Effect<{ readonly model: LanguageModel.LanguageModel; readonly player: Player }> =>
  Effect.gen(function* () {
    const p = yield* player(script)
    const chunking = Chunking.resolve(options?.chunking)
    const model = yield* LanguageModel.make({
      generateText: (request) =>
        wholeReply(p, chunking, LanguageModelParts.lastToolResults(request.prompt), undefined).pipe(
          Effect.map(LanguageModelParts.toResponseParts),
          Effect.mapError(aiErrorOf("generateText"))
        ),
      streamText: (request) =>
        Stream.unwrap(
          Effect.map(turnParts(p, chunking, LanguageModelParts.lastToolResults(request.prompt), undefined), (turn) =>
            streamOf(LanguageModelParts.toStreamParts(turn.parts), turn.cut)
          )
        ).pipe(Stream.mapError(aiErrorOf("streamText")))
    })
    return { model, player: p }
  })
