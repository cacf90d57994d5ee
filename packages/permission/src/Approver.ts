/**
 * Who answers when a rule says `ask`: an `Approver` service. Three ship: the terminal
 * (`Terminal.make`, y / n / always for this tool), `unattended` (the default: no one can be
 * asked, so the call is denied, saying so), and `scripted` (answers given in advance, for tests
 * and scenario files). An approver only ever hears about calls the rules ask about: its `yes`
 * runs one call, its `always` runs the calls of that tool the same rule asks about later, its
 * `no` denies. It cannot allow what a rule denies.
 *
 * @since 0.1.0
 */
import type { Tool } from "@agent-harness/tool-schema"
import { Context, Effect, Ref, Schema } from "effect"
import * as Messages from "./Messages.ts"
import * as Strict from "./Strict.ts"

/**
 * A call a rule asks about.
 *
 * @since 0.1.0
 */
export interface Request {
  /** The call's `tool_use_id`. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /**
   * The call's input as it will run: the decoded value the tool gets (it passed the tool's
   * schema, which may have trimmed, lower-cased or filled it in). Approve this.
   */
  readonly input: unknown
  /** The input as the model sent it, before decoding, for display. */
  readonly raw?: unknown
  /** The tool's annotations. */
  readonly annotations: Tool.Annotations
  /**
   * What the tool's input fields mean (`Tool.fields`: `{ programa: "program" }`), so that an
   * approver can show a command as one line (`Command.display`).
   */
  readonly fields?: Tool.FieldMeanings | undefined
  /** The index of the rule that asks in the policy's `rules`; `undefined`: the default. */
  readonly rule: number | undefined
  /** That rule's reason. */
  readonly reason: string | undefined
}

/**
 * An approver's answer: `yes` (this call), `always` (this tool, whenever the same rule asks, for
 * the gate's lifetime) or `no`, with an optional reason the model reads when it is `no`.
 *
 * @since 0.1.0
 */
export interface Answer {
  /** `yes`, `no` or `always`. */
  readonly answer: "yes" | "no" | "always"
  /** Why, when it is `no`: the model reads it. */
  readonly reason?: string | undefined
  /** Who answered (a person's name, an approver's): recorded in the gate's `permission.decided`. */
  readonly by?: string | undefined
}

/**
 * Something that answers requests. `ask` must not fail; if it dies, throws or answers something
 * that is not an `Answer`, the gate denies the call and says why.
 *
 * @since 0.1.0
 */
export interface Approver {
  /** Answers one request. */
  readonly ask: (request: Request) => Effect.Effect<Answer>
}

/**
 * No one to ask: every request is answered `no`, with the reason `this call needs someone's
 * approval, and no one could be asked` (in the catalogue's language). What runs without a
 * terminal (CI, a pipe) gets.
 *
 * @since 0.1.0
 */
export const unattended: Approver = {
  ask: () => Effect.map(Messages.current, (messages) => ({ answer: "no", reason: messages.noApprover }))
}

/**
 * The approver in use: `unattended` unless provided
 * (`Effect.provideService(Approver.Approver, approver)`).
 *
 * @since 0.1.0
 */
export const Approver: Context.Reference<Approver> = Context.Reference<Approver>("@agent-harness/permission/Approver", {
  defaultValue: () => unattended
})

/**
 * One scripted answer, as a scenario file writes it: the answer, and optionally the call it is
 * for (`tool_use_id`, `name`, the wire's spelling of a call's id and tool name), checked when it
 * is used. Files written before `name` say `tool`, which still reads (not both).
 *
 * @since 0.1.0
 */
export interface ScriptedAnswer {
  /** The call it answers, checked when it is used. */
  readonly tool_use_id?: string
  /** The tool it answers, checked when it is used. */
  readonly name?: string
  /**
   * The tool it answers, as files written before `name` say it.
   *
   * @deprecated Use `name`.
   */
  readonly tool?: string
  /** The answer. */
  readonly answer: "yes" | "no" | "always"
  /** The reason of a `no`. */
  readonly reason?: string
}

/**
 * The Schema of scripted answers, in the order they are used (unknown fields refused).
 *
 * @since 0.1.0
 */
export const ScriptedAnswers: Schema.Codec<
  ReadonlyArray<ScriptedAnswer>,
  ReadonlyArray<{ readonly [key: string]: unknown }>
> = Schema.Array(
  Strict.struct({
    tool_use_id: Schema.optionalKey(Schema.String),
    name: Schema.optionalKey(Schema.String),
    tool: Schema.optionalKey(Schema.String),
    answer: Schema.Literals(["yes", "no", "always"]).annotate({ expected: `"yes", "no" or "always"` }),
    reason: Schema.optionalKey(Schema.String)
  }).check(
    Schema.makeFilter((answer: ScriptedAnswer) =>
      answer.name !== undefined && answer.tool !== undefined
        ? {
            path: ["tool"],
            issue: `an answer names its tool once: "name" (its old spelling "tool" also reads, but not both)`
          }
        : undefined
    )
  )
)

/**
 * A scripted approver and what happened to its script.
 *
 * @since 0.1.0
 */
export interface Scripted {
  /** The approver to provide. */
  readonly approver: Approver
  /** The requests it was asked, in order. */
  readonly asked: Effect.Effect<ReadonlyArray<Request>>
  /**
   * What did not go as scripted: a request with no answer left, a request for another call
   * than its answer names, answers never used. Empty when the script was followed exactly.
   */
  readonly problems: Effect.Effect<ReadonlyArray<string>>
}

interface ScriptState {
  readonly asked: ReadonlyArray<Request>
  readonly problems: ReadonlyArray<string>
}

/**
 * An approver that gives `answers` in order. A request it has no answer for, or whose answer
 * names another call (`tool_use_id`, `tool`), is answered `no` (with a reason saying so) and
 * counted in `problems`, as are answers left unused: a test sees exactly where the
 * conversation left the script.
 *
 * @since 0.1.0
 */
export const scripted = (answers: ReadonlyArray<ScriptedAnswer>): Effect.Effect<Scripted> =>
  Effect.gen(function* () {
    const state = yield* Ref.make<ScriptState>({ asked: [], problems: [] })
    const ask = (request: Request): Effect.Effect<Answer> =>
      Ref.modify(state, ({ asked, problems }): [Answer, ScriptState] => {
        const n = asked.length
        const next = { asked: [...asked, request] }
        const answer = answers[n]
        const fail = (problem: string): [Answer, ScriptState] => [
          { answer: "no", reason: `the scripted approvals: ${problem}` },
          { ...next, problems: [...problems, problem] }
        ]
        if (answer === undefined) {
          return fail(
            `request ${n + 1} (${request.name}, call ${request.id}) has no answer (${answers.length} scripted)`
          )
        }
        if (answer.tool_use_id !== undefined && answer.tool_use_id !== request.id) {
          return fail(
            `answer ${n + 1} is for call ${answer.tool_use_id}, but call ${request.id} (${request.name}) asked`
          )
        }
        const tool = answer.name ?? answer.tool
        if (tool !== undefined && tool !== request.name) {
          return fail(`answer ${n + 1} is for tool ${tool}, but ${request.name} (call ${request.id}) asked`)
        }
        return [
          answer.reason === undefined ? { answer: answer.answer } : { answer: answer.answer, reason: answer.reason },
          { ...next, problems }
        ]
      })
    return {
      approver: { ask },
      asked: Effect.map(Ref.get(state), (s) => s.asked),
      problems: Effect.map(Ref.get(state), ({ asked, problems }) =>
        asked.length < answers.length
          ? [
              ...problems,
              `${answers.length - asked.length} scripted answer(s) never used (from answer ${asked.length + 1})`
            ]
          : problems
      )
    }
  })
