/**
 * A durable journal keyed by call id, with the meaning of Stripe's idempotency keys: before a
 * non-idempotent call runs, "started" is written and flushed; after it, the outcome. Executing a
 * call id whose outcome is recorded replays the stored observation and runs nothing. A call id
 * that started and never finished is **outcome unknown**: it is never re-run blindly, and the
 * model and the caller are told so. Idempotent calls may re-run. A call id reused for another
 * call (another tool or other input) is refused. The input recorded and compared is the one
 * that runs: the decoded value the executor gives the tool (see {@link recordedInput}), as its
 * canonical JSON text (`Canonical`), so two raw inputs that differ only by what the tool's schema
 * normalizes (a trim, a case, a default) are one call; an input that has no such text is
 * refused before anything runs. A journal write that fails is tried twice more (the tool never is); a result that still
 * cannot be recorded is answered loudly: an error observation that says so, with the typed
 * failure {@link NotRecorded}.
 *
 * It plugs into the executor as middleware (`Journal.layer(store)`): the loop does not change.
 *
 * @since 0.1.0
 */
import { Execute, Outcome } from "@agent-harness/executor"
import { Canonical, MessageCatalog, Tool, ToolContent } from "@agent-harness/tool-schema"
import { type Cause, Effect, type Layer, Result, Schema, SchemaParser } from "effect"

/**
 * What the model was shown for a call, as recorded: its text, and its rich parts and
 * structured content when it had any (records written before these existed have neither).
 *
 * @since 0.1.0
 */
export const Observation: Schema.Struct<{
  readonly original: Schema.Literals<readonly ["NotExecuted", "Refused", "Failed", "Succeeded"]>
  readonly is_error: Schema.Boolean
  readonly content: Schema.String
  readonly parts: Schema.optionalKey<Schema.$Array<typeof ToolContent.Part>>
  readonly structured: Schema.optionalKey<Schema.Unknown>
}> = Schema.Struct({
  original: Schema.Literals(["NotExecuted", "Refused", "Failed", "Succeeded"]),
  is_error: Schema.Boolean,
  content: Schema.String,
  parts: Schema.optionalKey(Schema.Array(ToolContent.Part)),
  structured: Schema.optionalKey(Schema.Unknown)
})

/** What the model was shown for a call, as recorded. @since 0.1.0 */
export type Observation = typeof Observation.Type

/**
 * One call id's record: the call's `id`, its tool's `name` and its `input` (spelt as on the
 * call itself), its state and, once done, the observation.
 *
 * @since 0.1.0
 */
export const Entry: Schema.Struct<{
  readonly id: Schema.String
  readonly name: Schema.String
  readonly input: Schema.Unknown
  readonly state: Schema.Literals<readonly ["started", "done"]>
  readonly observation: Schema.optionalKey<typeof Observation>
}> = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown,
  state: Schema.Literals(["started", "done"]),
  observation: Schema.optionalKey(Observation)
})

/** One call id's record. @since 0.1.0 */
export type Entry = typeof Entry.Type

const JournalErrorBase: Schema.Class<
  JournalError,
  Schema.TaggedStruct<"JournalError", { readonly file: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<JournalError>()("JournalError", {
  file: Schema.String,
  problem: Schema.String
})

/**
 * The journal cannot be read or written: the file, and what is wrong.
 *
 * @since 0.1.0
 */
export class JournalError extends JournalErrorBase {
  /** `file: problem`. */
  override get message(): string {
    return `${this.file}: ${this.problem}`
  }
}

/**
 * The text a store records for a call's input: its canonical JSON (`Canonical.encode`), or a
 * `JournalError` naming the call and what cannot be encoded. Every store records this text, so
 * every store compares inputs alike.
 *
 * @since 0.1.0
 */
export const inputText = (file: string, id: string, input: unknown): Result.Result<string, JournalError> => {
  const text = Canonical.encode(input)
  return Result.isSuccess(text)
    ? Result.succeed(text.success)
    : Result.fail(
        new JournalError({ file, problem: `call '${id}': its input cannot be recorded (${text.failure.message})` })
      )
}

/**
 * What the journal records for a call: the value handed to the store, and its canonical text
 * (what two calls are compared by).
 *
 * @since 0.1.0
 */
export interface Recorded {
  /** The value the store records (`Store.start`, `Store.finish`). */
  readonly value: unknown
  /** Its canonical JSON text. */
  readonly text: string
}

type Encoder = (input: unknown) => Result.Result<unknown, unknown>

/** The encoder of a tool's parameters, built once per schema. */
const encoders = new WeakMap<Tool.Parameters, Encoder>()

const encoderOf = (parameters: Tool.Parameters): Encoder => {
  let encoder = encoders.get(parameters)
  if (encoder === undefined) {
    const encode = SchemaParser.encodeUnknownResult(parameters as unknown as Schema.Codec<unknown, unknown>)
    encoder = (input) => {
      try {
        return encode(input)
      } catch (thrown) {
        return Result.fail(thrown)
      }
    }
    encoders.set(parameters, encoder)
  }
  return encoder
}

/**
 * What the journal records for a call to `tool` with the decoded `input` (middleware's
 * `call.input`, the value the tool runs with), or why it cannot. The choice: the decoded value
 * itself whenever `Canonical` can encode it (plain data, numbers, a `Date` as its ISO text
 * through `toJSON`), since that is exactly what runs; a decoded value that `Canonical` refuses
 * (a `bigint`, a `Map`, a class instance from a `decodeTo`) is recorded as the tool schema's
 * encoding of it, its wire form, when that has a canonical text. Either way a raw input that
 * differs only by what the schema normalizes is the same call. Every journal (the stores, the
 * durable one) records this, so all of them key alike.
 *
 * @since 0.1.0
 */
export const recordedInput = (tool: Tool.Any, input: unknown): Result.Result<Recorded, Canonical.Unencodable> => {
  const direct = Canonical.encode(input)
  if (Result.isSuccess(direct)) return Result.succeed({ value: input, text: direct.success })
  let parameters: Tool.Parameters
  try {
    parameters = tool.parameters
  } catch {
    return Result.fail(direct.failure)
  }
  const encoded = encoderOf(parameters)(input)
  if (Result.isFailure(encoded)) return Result.fail(direct.failure)
  const text = Canonical.encode(encoded.success)
  return Result.isSuccess(text)
    ? Result.succeed({ value: encoded.success, text: text.success })
    : Result.fail(direct.failure)
}

/**
 * A call as a store keeps it: the input and the observation as JSON text (the observation is
 * `null` while the call is only started). The tables' column for the tool's name is `tool`, as
 * every journal written so far has it; the stores read it as `name`.
 *
 * @since 0.1.0
 */
export interface StoredRow {
  /** The call id. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /** The input's canonical JSON text (`inputText`). */
  readonly input: string
  /** `started` or `done`. */
  readonly state: string
  /** The observation as JSON text, or `null` while the call is only started. */
  readonly observation: string | null
}

/** A row's tool name: `name`, or `tool` in a row shaped as before (a store of its own). */
const nameOfRow = (u: object): string | undefined =>
  "name" in u && typeof u.name === "string" ? u.name : "tool" in u && typeof u.tool === "string" ? u.tool : undefined

const isStoredRow = (u: unknown): u is Omit<StoredRow, "name"> =>
  typeof u === "object" &&
  u !== null &&
  "id" in u &&
  typeof u.id === "string" &&
  "input" in u &&
  typeof u.input === "string" &&
  "state" in u &&
  typeof u.state === "string" &&
  "observation" in u &&
  (u.observation === null || typeof u.observation === "string")

const decodeObservation = Schema.decodeUnknownResult(Observation)

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * A stored row (see {@link StoredRow}) as an entry, or a `JournalError` naming `location`, the
 * call and what is wrong with it: every store reads its rows alike. A row that names the tool
 * `tool` (the shape rows had before `name`) still reads.
 *
 * @since 0.1.0
 */
export const entryOfRow = (location: string, row: unknown): Result.Result<Entry, JournalError> => {
  const fail = (problem: string) => Result.fail(new JournalError({ file: location, problem }))
  if (!isStoredRow(row)) return fail("a row of the journal is not a call")
  const name = nameOfRow(row)
  if (name === undefined) return fail("a row of the journal is not a call")
  const bad = (problem: string) => fail(`call '${row.id}': ${problem}`)
  let input: unknown
  try {
    input = JSON.parse(row.input)
  } catch (error) {
    return bad(`its input is not JSON (${messageOf(error)})`)
  }
  if (row.state !== "started" && row.state !== "done") return bad(`unknown state ${JSON.stringify(row.state)}`)
  if (row.observation === null) {
    return row.state === "done"
      ? bad("done, but no observation is recorded")
      : Result.succeed({ id: row.id, name, input, state: "started" })
  }
  let json: unknown
  try {
    json = JSON.parse(row.observation)
  } catch (error) {
    return bad(`its observation is not JSON (${messageOf(error)})`)
  }
  const observation = decodeObservation(json)
  if (Result.isFailure(observation)) return bad(`its observation is not valid (${observation.failure.message})`)
  return Result.succeed({ id: row.id, name, input, state: row.state, observation: observation.success })
}

/**
 * A journal backend. `start` and `finish` return only once the record is durable; an input
 * they cannot record (see {@link inputText}) fails them with a `JournalError`.
 *
 * @since 0.1.0
 */
export interface Store {
  /** Where it is kept (a file path, or `memory`), for messages. */
  readonly location: string
  /** The entry of a call id, or `undefined` when the journal has none. */
  readonly get: (id: string) => Effect.Effect<Entry | undefined, JournalError>
  /**
   * Records that a call is about to run. Fails if the id is already in the journal (two calls
   * with one id raced past `get`): at most one of them may run.
   */
  readonly start: (id: string, name: string, input: unknown) => Effect.Effect<void, JournalError>
  /**
   * Optional: records that a call is about to run unless the journal already holds its id, in
   * one atomic write the id's uniqueness decides (no read before it): `undefined` when the call
   * was recorded as started now, else the entry already there, left as it is. The middleware
   * uses it, when a store has it, for a call it marks started (instead of `get`, then `start`).
   */
  readonly claim?:
    | ((id: string, name: string, input: unknown) => Effect.Effect<Entry | undefined, JournalError>)
    | undefined
  /** Records a call's outcome (inserting the entry if it was never started). */
  readonly finish: (
    id: string,
    name: string,
    input: unknown,
    observation: Observation
  ) => Effect.Effect<void, JournalError>
  /** Every entry, in the order they were first written. */
  readonly entries: Effect.Effect<ReadonlyArray<Entry>, JournalError>
}

/**
 * The observation to record for an outcome.
 *
 * @since 0.1.0
 */
export const observationOf = (outcome: Outcome.Outcome): Observation => {
  const observation: { -readonly [K in keyof Observation]: Observation[K] } = {
    original: outcome._tag === "Replayed" ? outcome.original : outcome._tag,
    is_error: Outcome.isError(outcome),
    content: outcome.content
  }
  const parts = Outcome.partsOf(outcome)
  const structured = Outcome.structuredOf(outcome)
  if (parts.length > 0) observation.parts = parts
  if (structured !== undefined) observation.structured = structured
  return observation
}

/**
 * A recorded observation given again for the call `call`: `Replayed`, with the recorded text,
 * parts and structured content.
 *
 * @since 0.1.0
 */
export const replayed = (
  call: { readonly id: string; readonly name: string },
  observation: Observation
): Outcome.Replayed => {
  const outcome: { -readonly [K in keyof Outcome.Replayed]: Outcome.Replayed[K] } = {
    _tag: "Replayed",
    id: call.id,
    name: call.name,
    original: observation.original,
    isError: observation.is_error,
    content: observation.content
  }
  if (observation.parts !== undefined) outcome.parts = observation.parts
  if (observation.structured !== undefined) outcome.structured = observation.structured
  return outcome
}

const NotRecordedBase: Schema.Class<
  NotRecorded,
  Schema.TaggedStruct<
    "NotRecorded",
    {
      readonly id: Schema.String
      readonly tool: Schema.String
      /** The observation that could not be recorded: what the call's outcome was. */
      readonly observation: typeof Observation
      /** Why the journal could not record it. */
      readonly problem: Schema.String
      /** Whether the journal holds the call as started (then outcome unknown after a restart). */
      readonly started: Schema.Boolean
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<NotRecorded>()("NotRecorded", {
  id: Schema.String,
  tool: Schema.String,
  /** The observation that could not be recorded: what the call's outcome was. */
  observation: Observation,
  /** Why the journal could not record it. */
  problem: Schema.String,
  /**
   * Whether the journal holds the call as started (a non-idempotent call): after a restart it is
   * outcome unknown and is not run again. An idempotent call has no mark and may run again.
   */
  started: Schema.Boolean
})

/**
 * The typed failure of a call whose result the journal could not record, even after trying
 * again: the call ran (or may have), and the journal does not know it. The journal answers such
 * a call `Failed`, with this as its `Defect` failure and an error observation that says so
 * ({@link notRecordedNote}): `execute` never fails, so this is how it fails loudly.
 *
 * @since 0.1.0
 */
export class NotRecorded extends NotRecordedBase {
  /** Which call's result could not be recorded, and why. */
  override get message(): string {
    return `the journal could not record the result of call '${this.id}' (${this.tool}): ${this.problem}`
  }
}

/**
 * How many more times a journal write (`start` or `claim`, `finish`) that failed is tried, at
 * once, before the journal gives up. The tool itself is never run again. (The SQLite store
 * already waits for another process's lock inside each try.)
 *
 * @since 0.1.0
 */
export const writeRetries = 2

/**
 * The note appended to the observation of a call whose result could not be recorded.
 *
 * @since 0.1.0
 */
export const notRecordedNote = (notRecorded: NotRecorded): string =>
  notRecorded.started
    ? ` (not recorded: the journal could not record this result (${notRecorded.problem}); the call ran, so do not repeat it blindly: after a restart it is reported as outcome unknown and not run again)`
    : ` (not recorded: the journal could not record this result (${notRecorded.problem}); the tool is idempotent, so after a restart it may run again)`

/** A refused call: `reason` says why, `content` is the catalogue's `not executed: <reason>`. */
const refused = (
  catalog: MessageCatalog.MessageCatalog,
  call: { readonly id: string; readonly name: string },
  reason: string
): Outcome.Outcome => ({
  _tag: "Refused",
  id: call.id,
  name: call.name,
  reason,
  content: catalog.notExecuted(reason)
})

/**
 * The journal as executor middleware.
 *
 * @since 0.1.0
 */
export const middleware =
  (store: Store): Execute.Middleware =>
  (call, tool, run) =>
    Effect.gen(function* () {
      const catalog = yield* Effect.service(MessageCatalog.MessageCatalog)
      const refuse = (reason: string) => refused(catalog, call, reason)
      const input = recordedInput(tool, call.input)
      if (Result.isFailure(input)) return refuse(`the journal cannot record its input (${input.failure.message})`)
      const { value, text } = input.success
      const idempotent = Tool.isIdempotent(tool)
      // A call to mark started, on a store that can claim: one write, which the id's key decides.
      const claim = idempotent ? undefined : store.claim
      let entry: Entry | undefined
      if (claim === undefined) {
        const existing = yield* Effect.result(store.get(call.id))
        if (existing._tag === "Failure") return refuse(`the journal cannot be read (${existing.failure.message})`)
        entry = existing.success
      } else {
        // A try that failed may have written the mark: the next one finds it, and answers unknown.
        const claimed = yield* Effect.result(Effect.retry(claim(call.id, call.name, value), { times: writeRetries }))
        if (claimed._tag === "Failure") return refuse(`the journal cannot record the call (${claimed.failure.message})`)
        entry = claimed.success
      }
      if (entry !== undefined) {
        const recorded = Canonical.encode(entry.input)
        const same = Result.isSuccess(recorded) && recorded.success === text
        if (entry.name !== call.name || !same) {
          const shown = Result.isSuccess(recorded) ? recorded.success : `(unreadable: ${recorded.failure.message})`
          return refuse(`call id '${call.id}' was already used for another call (${entry.name} ${shown})`)
        }
        if (entry.state === "done" && entry.observation !== undefined) {
          const again: Outcome.Outcome = replayed(call, entry.observation)
          return again
        }
        if (!idempotent) {
          const unknown: Outcome.Outcome = {
            _tag: "Failed",
            id: call.id,
            name: call.name,
            failure: { _tag: "OutcomeUnknown" },
            content: catalog.outcomeUnknown
          }
          return unknown
        }
      }
      if (!idempotent && claim === undefined) {
        const started = yield* Effect.result(
          Effect.retry(store.start(call.id, call.name, value), { times: writeRetries })
        )
        if (started._tag === "Failure") return refuse(`the journal cannot record the call (${started.failure.message})`)
      }
      const outcome = yield* run
      const observation = observationOf(outcome)
      const finished = yield* Effect.result(
        Effect.retry(store.finish(call.id, call.name, value, observation), { times: writeRetries })
      )
      if (finished._tag === "Success") return outcome
      // The call ran and the journal does not know it: say so, loudly. A non-idempotent call
      // stays "started" (outcome unknown after a restart, never run twice).
      const notRecorded = new NotRecorded({
        id: call.id,
        tool: call.name,
        observation,
        problem: finished.failure.message,
        started: !idempotent
      })
      const loud: Outcome.Outcome = {
        _tag: "Failed",
        id: call.id,
        name: call.name,
        failure: { _tag: "Defect", defect: notRecorded },
        content: `${outcome.content}${notRecordedNote(notRecorded)}`
      }
      return loud
    })

/**
 * The journal over a store, as the executor's middleware, added inside the middleware already
 * in use where the layer is built (a permission gate stays in front of it), never replacing it
 * (see `Execute.layerMiddleware`).
 *
 * @since 0.1.0
 */
export const layer = (store: Store): Layer.Layer<never> => Execute.layerMiddleware(middleware(store), "inside")
