/**
 * Approvals that survive a restart: a call a permission rule asks about is **parked** as a
 * pending approval, bound to its session, its call id and a digest of the decoded input it
 * would run with, and waits there for a person's answer, given from any process that reaches
 * the same store (`harness approve ID`, `harness deny ID --reason …`, an approver in code).
 *
 * The store is the one place the answer is decided, so it holds the guarantees:
 *
 * - **one approval per call**: parking the same call again (a restart, another runner) gives the
 *   approval already there, answered or not; parking the same call id of the same session with
 *   other input is refused ({@link Mismatch}), so an answer never reaches arguments it was not
 *   given for;
 * - **exactly one answer**: `answer` is a conditional write on a pending approval; a second
 *   answer, an answer for other arguments (its `digest`), or for an approval that does not exist
 *   is refused ({@link AnswerRefused}) and changes nothing;
 * - **who and when**: the answer is recorded with who gave it (`by`), when, and why.
 *
 * Stores: {@link memory} here, the journal's SQLite file (`SqliteStore.approvals`), and
 * Postgres in `@agent-harness/durable`. The permission gate's parking approver
 * (`@agent-harness/permission`'s `Parked`) asks through one.
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"
import { Canonical } from "@agent-harness/tool-schema"
import { type Cause, Effect, Option, Result, Schema } from "effect"

/**
 * Where an approval stands: waiting for an answer, or answered.
 *
 * @since 0.2.0
 */
export type State = "pending" | "approved" | "denied"

/**
 * What is parked: the call a rule asks about.
 *
 * @since 0.2.0
 */
export interface Ask {
  /** The session (conversation, plan session) the call belongs to: call ids are unique only within one. */
  readonly session: string
  /** The call's `tool_use_id`. */
  readonly toolUseId: string
  /** The tool's name. */
  readonly name: string
  /** The decoded input the call would run with: what is approved (its canonical JSON and digest). */
  readonly input: unknown
  /** The asking rule's reason, shown to the person. */
  readonly reason?: string | undefined
  /** The asking rule's index in the policy (`undefined`: the default). */
  readonly rule?: number | undefined
  /**
   * How to wake the run waiting for the answer, as the engine that parked it reads it (the
   * durable engine's workflow and execution id); opaque to the store.
   */
  readonly wake?: string | undefined
}

/**
 * A pending or answered approval, as the store keeps it.
 *
 * @since 0.2.0
 */
export interface Approval {
  /** Its id: 16 hexadecimal digits, derived from the session and the call id (`idOf`). */
  readonly id: string
  /** The session. */
  readonly session: string
  /** The call's `tool_use_id`. */
  readonly toolUseId: string
  /** The tool's name. */
  readonly name: string
  /** The canonical JSON of the decoded input: what the person approves. */
  readonly input: string
  /** The SHA-256 of `input`, in hexadecimal: an answer may name it to be sure what it approves. */
  readonly digest: string
  /** The asking rule's reason. */
  readonly reason: string | undefined
  /** The asking rule's index (`undefined`: the default). */
  readonly rule: number | undefined
  /** When it was parked (milliseconds since the epoch). */
  readonly askedAt: number
  /** Where it stands. */
  readonly state: State
  /** Who answered. */
  readonly by: string | undefined
  /** Why, as the one who answered said it. */
  readonly answerReason: string | undefined
  /** When it was answered (milliseconds since the epoch). */
  readonly answeredAt: number | undefined
  /** How to wake the waiting run (see {@link Ask.wake}). */
  readonly wake: string | undefined
}

/**
 * A person's (or an approver's in code) answer.
 *
 * @since 0.2.0
 */
export interface Answer {
  /** `true` approves: the call runs once; `false` denies: it never runs. */
  readonly approve: boolean
  /** Who answers (not empty): recorded with the answer. */
  readonly by: string
  /** Why: the model reads it when the call is denied. */
  readonly reason?: string | undefined
  /** The digest the answer is for, when the one answering saw it: another approval's is refused. */
  readonly digest?: string | undefined
}

/**
 * Which approvals to list: by state, by session (both optional).
 *
 * @since 0.2.0
 */
export interface Filter {
  /** Only those in this state. */
  readonly state?: State | undefined
  /** Only those of this session. */
  readonly session?: string | undefined
}

const ApprovalErrorBase: Schema.Class<
  ApprovalError,
  Schema.TaggedStruct<"ApprovalError", { readonly store: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<ApprovalError>()("ApprovalError", { store: Schema.String, problem: Schema.String })

/**
 * The store cannot be read or written, or what it was given cannot be kept (an empty session,
 * an input with no JSON text): where, and what is wrong.
 *
 * @since 0.2.0
 */
export class ApprovalError extends ApprovalErrorBase {
  /** `store: problem`. */
  override get message(): string {
    return `${this.store}: ${this.problem}`
  }
}

const MismatchBase: Schema.Class<
  Mismatch,
  Schema.TaggedStruct<
    "Mismatch",
    {
      readonly id: Schema.String
      readonly session: Schema.String
      readonly toolUseId: Schema.String
      readonly parked: Schema.String
      readonly asked: Schema.String
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<Mismatch>()("Mismatch", {
  id: Schema.String,
  session: Schema.String,
  toolUseId: Schema.String,
  parked: Schema.String,
  asked: Schema.String
})

/**
 * The call id of this session was parked for another call (another tool, other input): the
 * approval it has is not this call's, so this call is not run on it.
 *
 * @since 0.2.0
 */
export class Mismatch extends MismatchBase {
  /** Which approval, and the two calls. */
  override get message(): string {
    return `call '${this.toolUseId}' of session '${this.session}' was parked for another call (approval ${this.id}: ${this.parked}), not ${this.asked}`
  }
}

const AnswerRefusedBase: Schema.Class<
  AnswerRefused,
  Schema.TaggedStruct<"AnswerRefused", { readonly id: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<AnswerRefused>()("AnswerRefused", { id: Schema.String, problem: Schema.String })

/**
 * An answer that was not taken, and changed nothing: no such approval, it was answered already
 * (by whom, how), or it is for other arguments than the digest given.
 *
 * @since 0.2.0
 */
export class AnswerRefused extends AnswerRefusedBase {
  /** `approval ID: problem`. */
  override get message(): string {
    return `approval ${this.id}: ${this.problem}`
  }
}

/**
 * A store of approvals. Every method fails only with the typed errors it names.
 *
 * @since 0.2.0
 */
export interface Store {
  /** Where it keeps them (a file, a table), for messages. */
  readonly location: string
  /**
   * Parks a call (or gives the approval already parked for it): `Mismatch` when its call id was
   * parked for another call.
   */
  readonly park: (ask: Ask) => Effect.Effect<Approval, ApprovalError | Mismatch>
  /** The approval with this id, if there is one. */
  readonly get: (id: string) => Effect.Effect<Option.Option<Approval>, ApprovalError>
  /** The approvals, oldest first. */
  readonly list: (filter?: Filter) => Effect.Effect<ReadonlyArray<Approval>, ApprovalError>
  /** Answers a pending approval, exactly once. */
  readonly answer: (id: string, answer: Answer) => Effect.Effect<Approval, ApprovalError | AnswerRefused>
}

/**
 * The id of the approval of a call: the first 16 hexadecimal digits of the SHA-256 of the
 * session and the call id. The same call always has the same id, on every runner.
 *
 * @since 0.2.0
 */
export const idOf = (session: string, toolUseId: string): string =>
  createHash("sha256").update(`${session}\u0000${toolUseId}`, "utf8").digest("hex").slice(0, 16)

/**
 * The SHA-256 of a text, in hexadecimal: the digest of an input's canonical JSON.
 *
 * @since 0.2.0
 */
export const digestOf = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/**
 * What a store keeps of an ask, checked: its id, its input's canonical JSON and digest; or why
 * it cannot be kept (an empty session or call id, an input with no JSON text). A hostile ask
 * (a getter that throws) is a problem too, never a throw.
 *
 * @since 0.2.0
 */
export const prepare = (location: string, ask: Ask, now: number): Result.Result<Approval, ApprovalError> => {
  const fail = (problem: string) => Result.fail(new ApprovalError({ store: location, problem }))
  try {
    const { session, toolUseId, name, reason, rule, wake } = ask
    if (typeof session !== "string" || session === "") return fail("a parked call needs a session, a non-empty text")
    if (typeof toolUseId !== "string" || toolUseId === "") {
      return fail("a parked call needs its tool_use_id, a non-empty text")
    }
    if (typeof name !== "string") return fail(`call '${toolUseId}': its tool's name is not a text`)
    const text = Canonical.encode(ask.input)
    if (Result.isFailure(text)) {
      return fail(`call '${toolUseId}': its input cannot be recorded (${text.failure.message})`)
    }
    return Result.succeed({
      id: idOf(session, toolUseId),
      session,
      toolUseId,
      name,
      input: text.success,
      digest: digestOf(text.success),
      reason: typeof reason === "string" ? reason : undefined,
      rule: typeof rule === "number" && Number.isSafeInteger(rule) ? rule : undefined,
      askedAt: now,
      state: "pending",
      by: undefined,
      answerReason: undefined,
      answeredAt: undefined,
      wake: typeof wake === "string" ? wake : undefined
    })
  } catch (thrown) {
    return fail(`the ask could not be read: ${thrown instanceof Error ? thrown.message : String(thrown)}`)
  }
}

/**
 * Whether an approval already kept is the one a new ask would make (same session, call id,
 * tool and input): parking it again gives it back; otherwise the ask is a {@link Mismatch}.
 *
 * @since 0.2.0
 */
export const sameCall = (kept: Approval, fresh: Approval): boolean =>
  kept.session === fresh.session &&
  kept.toolUseId === fresh.toolUseId &&
  kept.name === fresh.name &&
  kept.digest === fresh.digest

/**
 * The refusal of parking `fresh` where `kept` is.
 *
 * @since 0.2.0
 */
export const mismatch = (kept: Approval, fresh: Approval): Mismatch =>
  new Mismatch({
    id: kept.id,
    session: fresh.session,
    toolUseId: fresh.toolUseId,
    parked: `${kept.name} ${kept.input}`,
    asked: `${fresh.name} ${fresh.input}`
  })

/**
 * An answer, checked: who gave it must be a non-empty text (at most 200 characters), a reason at
 * most 2,000; the problem otherwise.
 *
 * @since 0.2.0
 */
export const checkAnswer = (answer: Answer): string | undefined => {
  try {
    if (typeof answer.approve !== "boolean") return "an answer approves (true) or denies (false)"
    if (typeof answer.by !== "string" || answer.by.trim() === "") return "an answer says who gives it (by)"
    if (answer.by.length > 200) return "who gives an answer is at most 200 characters"
    if (answer.reason !== undefined && (typeof answer.reason !== "string" || answer.reason.length > 2000)) {
      return "an answer's reason is a text of at most 2,000 characters"
    }
    if (answer.digest !== undefined && typeof answer.digest !== "string") return "an answer's digest is a text"
    return undefined
  } catch (thrown) {
    return `the answer could not be read: ${thrown instanceof Error ? thrown.message : String(thrown)}`
  }
}

/**
 * Why `answer` cannot be taken by `kept` as it stands (answered already, another digest), or
 * `undefined` when it can.
 *
 * @since 0.2.0
 */
export const refusal = (kept: Approval, answer: Answer): string | undefined => {
  if (kept.state !== "pending") {
    const when = kept.answeredAt === undefined ? "" : ` at ${new Date(kept.answeredAt).toISOString()}`
    return `it was ${kept.state} already, by ${kept.by ?? "someone"}${when}: an approval is answered once`
  }
  if (answer.digest === undefined) return undefined
  if (!/^[0-9a-f]{8,64}$/.test(answer.digest)) {
    return `a digest given with an answer is 8 to 64 hexadecimal digits, got ${JSON.stringify(answer.digest)}`
  }
  if (!kept.digest.startsWith(answer.digest)) {
    return `the answer is for arguments with digest ${answer.digest}, but this approval's call has digest ${kept.digest} (${kept.name} ${kept.input})`
  }
  return undefined
}

/**
 * `kept` with `answer` recorded at `now`.
 *
 * @since 0.2.0
 */
export const answered = (kept: Approval, answer: Answer, now: number): Approval => ({
  ...kept,
  state: answer.approve ? "approved" : "denied",
  by: answer.by.trim(),
  answerReason: answer.reason === undefined || answer.reason === "" ? undefined : answer.reason,
  answeredAt: now
})

/**
 * A store in memory: tests, and one process that only needs the guarantees while it lives.
 *
 * @since 0.2.0
 */
export const memory: Effect.Effect<Store> = Effect.sync(() => {
  const location = "memory"
  const kept = new Map<string, Approval>()
  return {
    location,
    park: (ask) =>
      Effect.suspend((): Effect.Effect<Approval, ApprovalError | Mismatch> => {
        const fresh = prepare(location, ask, Date.now())
        if (Result.isFailure(fresh)) return Effect.fail(fresh.failure)
        const there = kept.get(fresh.success.id)
        if (there === undefined) {
          kept.set(fresh.success.id, fresh.success)
          return Effect.succeed(fresh.success)
        }
        return sameCall(there, fresh.success) ? Effect.succeed(there) : Effect.fail(mismatch(there, fresh.success))
      }),
    get: (id) => Effect.sync(() => Option.fromNullishOr(kept.get(id))),
    list: (filter) =>
      Effect.sync(() =>
        [...kept.values()].filter(
          (a) =>
            (filter?.state === undefined || a.state === filter.state) &&
            (filter?.session === undefined || a.session === filter.session)
        )
      ),
    answer: (id, answer) =>
      Effect.suspend((): Effect.Effect<Approval, AnswerRefused> => {
        const problem = checkAnswer(answer)
        if (problem !== undefined) return Effect.fail(new AnswerRefused({ id, problem }))
        const there = kept.get(id)
        if (there === undefined) return Effect.fail(new AnswerRefused({ id, problem: "there is no such approval" }))
        const refused = refusal(there, answer)
        if (refused !== undefined) return Effect.fail(new AnswerRefused({ id, problem: refused }))
        const done = answered(there, answer, Date.now())
        kept.set(id, done)
        return Effect.succeed(done)
      })
  }
})

/**
 * The approvals whose id starts with `prefix` (at least 4 characters): what a person typing an
 * id may mean. One match is the approval; none or several are said as a problem.
 *
 * @since 0.2.0
 */
export const find = (store: Store, prefix: string): Effect.Effect<Approval, ApprovalError | AnswerRefused> =>
  Effect.gen(function* () {
    const wanted = prefix.trim().toLowerCase()
    if (!/^[0-9a-f]{4,16}$/.test(wanted)) {
      return yield* new AnswerRefused({
        id: prefix,
        problem: "an approval id is 4 to 16 hexadecimal digits (as `harness approvals list` shows it)"
      })
    }
    if (wanted.length === 16) {
      const one = yield* store.get(wanted)
      if (Option.isSome(one)) return one.value
      return yield* new AnswerRefused({ id: prefix, problem: "there is no such approval" })
    }
    const all = (yield* store.list()).filter((a) => a.id.startsWith(wanted))
    if (all.length === 1 && all[0] !== undefined) return all[0]
    return yield* new AnswerRefused({
      id: prefix,
      problem:
        all.length === 0
          ? "there is no such approval"
          : `${all.length} approvals start with it (${all.map((a) => a.id).join(", ")}): give more digits`
    })
  })
