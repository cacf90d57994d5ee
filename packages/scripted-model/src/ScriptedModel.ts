/**
 * The scripted model of the regression tests: it replies from a script and checks, before each reply,
 * that it is shown exactly the observations the script expects. It works as the loop's `Model`
 * and as an effect/ai `LanguageModel`.
 *
 * @since 0.1.0
 */
import { type Message, Model } from "@agent-harness/executor"
import { Effect, Layer, Ref, Result, Stream } from "effect"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import { ScriptDivergence, ScriptExhausted, ScriptUnfinished, showResult } from "./Divergence.ts"
import * as LanguageModelParts from "./LanguageModelParts.ts"
import { matches, type Script, type ScriptInvalid, type Turn, unchecked, validate } from "./Script.ts"

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
  Effect.map(Ref.make(0), (calls) => ({
    used: Ref.get(calls),
    next: (shown, opening) =>
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
        return turn.reply
      }),
    finish: (shown) =>
      Effect.gen(function* () {
        const n = yield* Ref.get(calls)
        if (n < script.turns.length) return yield* new ScriptUnfinished({ used: n, total: script.turns.length })
        const last = script.turns[n - 1]
        if (last !== undefined && shown.length > 0) yield* check(n, last.expect, shown)
      })
  }))

/**
 * The scripted model as the loop's `Model`: it also checks, when the loop stops, that no turn
 * is left over and that the last results are the expected ones.
 *
 * @since 0.1.0
 */
export const make = (script: Script): Effect.Effect<Model.Shape> =>
  Effect.map(player(script), (p) =>
    Model.fromReply((request) => p.next(lastResults(request.messages), request.messages), {
      complete: (messages) => p.finish(lastResults(messages))
    })
  )

/**
 * A `Model` layer playing a script (a fresh player each time the layer is built).
 *
 * @since 0.1.0
 */
export const layer = (script: Script): Layer.Layer<Model.Model> => Layer.effect(Model.Model, make(script))

/**
 * The scripted model as an effect/ai `LanguageModel`, checking the `tool` messages of each
 * prompt. A divergence fails `generateText` with an `AiError` whose description is the
 * divergence's message; `player.finish` checks the end of the script, which effect/ai cannot
 * signal by itself.
 *
 * @since 0.1.0
 */
export const languageModel = (
  script: Script
): Effect.Effect<{ readonly model: LanguageModel.LanguageModel; readonly player: Player }> =>
  Effect.gen(function* () {
    const p = yield* player(script)
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        p.next(LanguageModelParts.lastToolResults(options.prompt), undefined).pipe(
          Effect.map(LanguageModelParts.toResponseParts),
          Effect.mapError((divergence) =>
            AiError.make({
              module: "ScriptedModel",
              method: "generateText",
              reason: new AiError.UnknownError({ description: divergence.message })
            })
          )
        ),
      streamText: () => Stream.die("the scripted model does not stream")
    })
    return { model, player: p }
  })
