/**
 * How a run of the loop ended, in one JSON form: why it stopped, the final text (when it ended
 * with one) and how many model calls it made. The trace's `run.ended` event is this with its
 * `type`; the durable engine's record of a conversation is this with the history.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { StopReason } from "./StopReason.ts"

/**
 * How a run ended: `stop`, the final reply's `text` (absent unless the run ended with one) and
 * the number of model calls (`turns`).
 *
 * @since 0.1.0
 */
export const Ended: Schema.Struct<{
  readonly stop: typeof StopReason
  readonly text: Schema.optionalKey<Schema.String>
  readonly turns: Schema.Int
}> = Schema.Struct({
  stop: StopReason,
  text: Schema.optionalKey(Schema.String),
  turns: Schema.Int
})

/** How a run ended. @since 0.1.0 */
export type Ended = typeof Ended.Type

/**
 * How a run ended, from the loop's words (a `text` of `undefined` is left out).
 *
 * @since 0.1.0
 */
export const make = (stop: StopReason, text: string | undefined, turns: number): Ended =>
  text === undefined ? { stop, turns } : { stop, text, turns }

/**
 * Reads how a run ended from JSON (a trace's `run.ended` event, a record), or throws the
 * `SchemaError` that names what is wrong (e.g. an unknown stop reason).
 *
 * @since 0.1.0
 */
export const decode: (u: unknown) => Ended = Schema.decodeUnknownSync(Ended)
