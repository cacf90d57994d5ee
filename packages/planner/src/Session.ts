/**
 * The executor state machine of the plan-and-execute idea:
 *
 * ```
 * [*] → EXEC; EXEC → NEXT on success; NEXT → EXEC while steps remain, → DONE at the end;
 * EXEC → REPLAN on failure; REPLAN → EXEC with a new plan while replans remain, → FAILED after.
 * ```
 *
 * Failures follow a strategy: `abort` (FAILED, `aborted`), `skip` (mark the step failed and go
 * on; DONE is then `partial`), `replan` (hand the error to the planner and continue from the
 * cursor with its new plan). Steps run through the foundation's executor, so their args are
 * checked by tool-schema and their failures are observations. Budgets are hard: no step starts
 * past `maxSteps`, a new plan that cannot fit in what is left is refused (`step_budget`), a
 * failure after `maxReplans` replans ends the session (`replan_budget`), and an empty plan ends
 * it (`no_plan`). A step of a new plan that already succeeded with the same tool and args is not
 * run again (the partial-plan cache), under one rule: a result is never reused across a step
 * that may have changed the environment. A step whose tool is not annotated `readOnly` is an
 * action: once it succeeded it is done, and running it again would do it again, so it is
 * reused. A read-only step's result describes the environment at the time it ran, so it is
 * reused only while no step that may have changed it has run since (or alongside, in its
 * group): a step of a tool that is not read-only, unless it provably did not run (it failed its
 * schema, named no tool, or was refused). A failed step is never reused. Consecutive steps of
 * one `group` run concurrently, each counted against the budget, results kept in plan order.
 *
 * Every session has an id, generated (a random UUID) unless given, and each step runs with the
 * call id `<session id>/step-<revision>-<step id>` ({@link toolUseId}): a journal (the idempotency
 * package's middleware) then tells one session's calls from another's, so a second session on
 * the same durable journal runs its steps instead of being handed the first one's results. To
 * resume a session on purpose (after a crash), run it again with the same `sessionId` over the
 * same journal: the steps it had finished are replayed, not run again.
 *
 * @since 0.1.0
 */
import { Budget, Spend, SpendMeter } from "@agent-harness/budgets"
import { PlanDiff } from "@agent-harness/diff"
import { Execute, Outcome, Spans, Spending } from "@agent-harness/executor"
import { type Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Effect, Queue, Stream } from "effect"
import * as Result_ from "effect/Result"
import type { Event } from "./Event.ts"
import { InvalidPlan, type Planner } from "./Planner.ts"
import type { Reason, SessionResult } from "./SessionResult.ts"
import { statusOf } from "./SessionResult.ts"
import * as Step from "./Step.ts"
import * as SessionSpans from "./internal/spans.ts"
import * as SessionTrace from "./internal/trace.ts"

/**
 * What to do when a step fails.
 *
 * @since 0.1.0
 */
export type Strategy = "replan" | "skip" | "abort"

/**
 * Options of a session.
 *
 * @since 0.1.0
 */
export interface Options<T extends Tool.Any, E, R> {
  /** What the session is for, as the planner reads it. */
  readonly goal: string
  /**
   * The session's id, in every call id (see {@link toolUseId}); default a fresh random UUID. Give
   * the id of an earlier session, over the same journal, to resume it. Not empty.
   */
  readonly sessionId?: string | undefined
  /** Proposes the plan, and each new plan after a failure. */
  readonly planner: Planner<E, R>
  /** The tools the steps call, each call checked by its schema. */
  readonly toolset: Toolset.Toolset<T>
  /** Default `replan`. */
  readonly onFailure?: Strategy | undefined
  /** Step executions at most. */
  readonly maxSteps: number
  /** Replans at most. */
  readonly maxReplans: number
  /** Per-step timeout. */
  readonly timeout?: Execute.Options["timeout"]
  /** Sees each event as it happens (they also end up in the result). */
  readonly onEvent?: ((event: Event) => Effect.Effect<void>) | undefined
  /**
   * Tokens and money for the planner's model calls: a `Spend` (`Spend.make(limits, { price })`),
   * or a `SpendMeter` shared with whatever else draws from it (the loop runs of the steps' own
   * sub-agents). The planner gets it in its request (`Request.spend`); each of its calls is
   * reserved first and settled after (`spend.settled`), and one that does not fit ends the
   * session (`spend.refused`, reason `token_budget` or `cost_budget`).
   */
  readonly spend?: Spend.Spend | SpendMeter.SpendMeter | undefined
}

/** The states of the diagram, as data. */
type State =
  | {
      readonly _tag: "Exec"
      readonly plan: Step.Plan
      /** The plan split into runs, once per plan (not once per run: that would be quadratic). */
      readonly runs: ReadonlyArray<ReadonlyArray<Step.Step>>
      readonly run: number
    }
  | { readonly _tag: "Replan"; readonly remaining: Step.Plan; readonly lastError: string }
  | { readonly _tag: "Done" }
  | { readonly _tag: "Failed"; readonly reason: Reason }

/**
 * The call id a step runs with (its `tool_use_id`): `<session id>/step-<revision>-<step id>`.
 * The same session, revision and step always give the same id (so a resumed session replays),
 * and two sessions never share one.
 *
 * @since 0.1.0
 */
export const toolUseId = (sessionId: string, revision: number, stepId: number): string =>
  `${sessionId}/step-${revision}-${stepId}`

/**
 * The call id a step runs with: the old name of {@link toolUseId}.
 *
 * @deprecated Use `Session.toolUseId`.
 * @since 0.1.0
 */
export const callId: (sessionId: string, revision: number, stepId: number) => string = toolUseId

/**
 * A fresh session id: a random UUID (`crypto.randomUUID`).
 *
 * @since 0.1.0
 */
export const makeSessionId = (): string => globalThis.crypto.randomUUID()

/** The session id to use: the one given (checked), or a fresh one. */
const sessionIdOf = (given: unknown): string => {
  if (given === undefined) return makeSessionId()
  if (typeof given !== "string" || given.trim() === "") {
    throw new RangeError(
      `a session id must be a non-empty string, got ${JSON.stringify(given) ?? String(given)}: give none to have one generated`
    )
  }
  return given
}

/** A step's latest success, as the partial-plan cache keeps it. */
interface Done {
  readonly id: number
  readonly tool_name: string
  readonly args: Readonly<Record<string, unknown>>
  readonly result: string
  /** Whether its tool is read-only: its result is then only as fresh as `changes` says. */
  readonly readOnly: boolean
  /** How many runs had (possibly) changed the environment when its run started. */
  readonly changes: number
}

/**
 * Runs a session to its `SessionResult`. Fails only with the planner's own non-plan errors
 * (a planner's `Spend.Exhausted` is not one: it ends the session with its budget reason).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Files, FileTools } from "@agent-harness/file-tools"
 * import { RulePlanner, Session, Step } from "@agent-harness/planner"
 *
 * const planner = RulePlanner.make([
 *   { when: null, plan: [Step.make(1, "read", { path: "notes.txt" }, "the notes")] },
 *   { when: "does not exist", plan: [Step.make(2, "read", { path: "list.txt" }, "the list")] }
 * ])
 * const program = Session.run({
 *   goal: "read the notes",
 *   planner,
 *   toolset: FileTools.english,
 *   maxSteps: 5,
 *   maxReplans: 2
 * }).pipe(Effect.provide(Files.layer({ "list.txt": "eggs\n" })))
 * // { status: "completed", reason: "goal_met", revisions: [{ removed: [1], added: [2], revised: [] }], ... }
 * ```
 *
 * @since 0.1.0
 */
export const run = <T extends Tool.Any, E, R>(
  options: Options<T, E, R>
): Effect.Effect<SessionResult, Exclude<E, Spend.Exhausted>, R | Tool.Services<T>> => runWith(options, true)

/** Runs a session; `keepEvents: false` leaves `events` empty (a stream has handed them on). */
const runWith = <T extends Tool.Any, E, R>(
  options: Options<T, E, R>,
  keepEvents: boolean
): Effect.Effect<SessionResult, Exclude<E, Spend.Exhausted>, R | Tool.Services<T>> =>
  Effect.flatMap(Spans.traced, (traced) => {
    const sessionId = sessionIdOf(options.sessionId)
    if (!traced) return session(options, keepEvents, sessionId, false)
    return Effect.withSpan(session(options, keepEvents, sessionId, true), SessionSpans.sessionName, {
      kind: "internal",
      attributes: SessionSpans.sessionAttributes(sessionId)
    })
  })

/** The session itself; `traced`: its spans are read (its events are span events too). */
const session = <T extends Tool.Any, E, R>(
  options: Options<T, E, R>,
  keepEvents: boolean,
  sessionId: string,
  traced: boolean
): Effect.Effect<SessionResult, Exclude<E, Spend.Exhausted>, R | Tool.Services<T>> =>
  Effect.gen(function* () {
    const strategy = options.onFailure ?? "replan"
    let steps = Budget.steps(options.maxSteps)
    let replans = Budget.replans(options.maxReplans)
    const history: Array<Step.Step> = []
    const revisions: Array<PlanDiff.PlanDiff> = []
    const events: Array<Event> = []
    const succeeded = new Map<number, Done>()
    let revision = 0
    let anyFailed = false

    const emit = (event: Event) => {
      if (keepEvents) events.push(event)
      const recorded = SessionTrace.record(() => SessionTrace.eventEntry(event))
      const told = options.onEvent === undefined ? recorded : Effect.andThen(options.onEvent(event), recorded)
      return traced ? Effect.andThen(SessionSpans.spanEvent(event), told) : told
    }
    yield* SessionTrace.record(() => SessionTrace.startEntry(SessionTrace.startOf(options)))
    /** How many runs so far had a step that may have changed the environment. */
    let changes = 0
    const isReadOnly = (toolName: string): boolean =>
      Toolset.get(options.toolset, toolName)?.annotations.readOnly === true
    /** Whether a step may change the environment if it runs (a tool that exists and is not read-only). */
    const mayChange = (toolName: string): boolean => {
      const tool = Toolset.get(options.toolset, toolName)
      return tool !== undefined && !tool.annotations.readOnly
    }
    /** The reusable success of a step, when `changing` runs have changed the environment so far. */
    const cachedAt = (step: Step.Step, changing: number): Done | undefined => {
      const done = succeeded.get(step.id)
      if (done === undefined || done.tool_name !== step.tool_name || !PlanDiff.equalArgs(done.args, step.args)) {
        return undefined
      }
      return done.readOnly && done.changes !== changing ? undefined : done
    }
    /**
     * The steps of a plan that will run: those not cached, where a read-only step's result goes
     * stale once a step before it (or in its group) may change the environment.
     */
    const toRunCount = (runs: ReadonlyArray<ReadonlyArray<Step.Step>>) => {
      let changing = changes
      let count = 0
      for (const run of runs) {
        let changed = false
        for (const step of run) {
          if (cachedAt(step, changing) !== undefined) continue
          count++
          if (mayChange(step.tool_name)) changed = true
        }
        if (changed) changing++
      }
      return count
    }

    /** Whether a plan has been accepted yet: only later plans are revisions with a diff. */
    let accepted = false

    const meter = options.spend === undefined ? undefined : SpendMeter.from(options.spend)
    /** The session's meter as the planner asked for `revision` sees it: each settlement an event. */
    const plannerMeter = (at: number): SpendMeter.SpendMeter | undefined =>
      meter === undefined
        ? undefined
        : {
            ...meter,
            settle: (reservation, usage) =>
              Effect.tap(meter.settle(reservation, usage), (settled) =>
                emit({
                  type: "spend.settled",
                  revision: at,
                  reported: usage !== undefined,
                  spent: Spending.wire(settled.spent),
                  total: Spending.wire(settled.total)
                })
              ),
            // A call recorded by a journal and replayed: what it spent when it ran.
            count: (amount) =>
              Effect.tap(meter.count(amount), (total) =>
                emit({
                  type: "spend.settled",
                  revision: at,
                  reported: true,
                  spent: Spending.wire(amount),
                  total: Spending.wire(total)
                })
              )
          }

    /**
     * Asks the planner; an invalid plan becomes an `InvalidPlan` value, a call the spend refused
     * an `Exhausted` value (after its `spend.refused` event), other errors fail.
     */
    const ask = (
      lastError: string | null
    ): Effect.Effect<Result_.Result<Step.Plan, InvalidPlan | Spend.Exhausted>, Exclude<E, Spend.Exhausted>, R> => {
      const at = accepted ? revision + 1 : revision
      const spend = plannerMeter(at)
      const planning = options.planner({
        goal: options.goal,
        history: [...history],
        lastError,
        ...(spend === undefined ? {} : { spend })
      })
      return (traced ? SessionSpans.plannerCall(lastError === null, at, planning) : planning).pipe(
        Effect.flatMap((plan) => {
          const problem = Step.problem(plan)
          return problem === undefined ? Effect.succeed(plan) : Effect.fail(new InvalidPlan({ reason: problem }))
        }),
        Effect.map((plan): Result_.Result<Step.Plan, InvalidPlan | Spend.Exhausted> => Result_.succeed(plan)),
        Effect.catch(
          (stopped): Effect.Effect<Result_.Result<Step.Plan, InvalidPlan | Spend.Exhausted>, unknown> =>
            stopped instanceof Spend.Exhausted
              ? Effect.as(
                  emit({
                    type: "spend.refused",
                    revision: at,
                    reason: stopped.reason,
                    kind: stopped.kind,
                    limit: stopped.limit,
                    committed: stopped.committed,
                    requested: stopped.requested
                  }),
                  Result_.fail(stopped)
                )
              : stopped instanceof InvalidPlan
                ? Effect.succeed(Result_.fail(stopped))
                : Effect.fail(stopped)
        )
      ) as Effect.Effect<Result_.Result<Step.Plan, InvalidPlan | Spend.Exhausted>, Exclude<E, Spend.Exhausted>, R>
    }

    /** A planner's answer that is not a plan: rejected (and replanned), or the spend's stop. */
    const refuse = (remaining: Step.Plan, failure: InvalidPlan | Spend.Exhausted) =>
      failure instanceof Spend.Exhausted
        ? Effect.succeed({ _tag: "Failed", reason: failure.reason } as const satisfies State)
        : reject(remaining, failure)

    /** Accepts a plan if it fits in what is left of the step budget. */
    const accept = (plan: Step.Plan, previous: Step.Plan, lastError: string | null) =>
      Effect.gen(function* () {
        if (plan.length === 0) return { _tag: "Failed", reason: "no_plan" } as const satisfies State
        const runs = Step.runs(plan)
        const needed = toRunCount(runs)
        if (!Budget.canSpend(steps, needed)) {
          yield* emit({
            type: "plan.rejected",
            reason: "step_budget",
            detail: `the plan needs ${needed} step${needed === 1 ? "" : "s"}, ${Budget.remaining(steps)} of ${steps.limit} left`,
            plan
          })
          return { _tag: "Failed", reason: "step_budget" } as const satisfies State
        }
        if (accepted && lastError !== null) {
          revision++
          const diff = PlanDiff.diff(previous, plan)
          revisions.push(diff)
          yield* emit({ type: "plan.diff", revision, last_error: lastError, diff })
        }
        accepted = true
        yield* emit({ type: "plan.created", revision, plan })
        return { _tag: "Exec", plan, runs, run: 0 } as const satisfies State
      })

    /** An invalid plan: shown, then replanned with its reason as the last error. */
    const reject = (remaining: Step.Plan, invalid: InvalidPlan) =>
      Effect.as(emit({ type: "plan.rejected", reason: "invalid", detail: invalid.reason, plan: [] }), {
        _tag: "Replan",
        remaining,
        lastError: invalid.message
      } as const satisfies State)

    const exec = (plan: Step.Plan, runs: ReadonlyArray<ReadonlyArray<Step.Step>>, index: number) =>
      Effect.gen(function* () {
        const current = runs[index]
        if (current === undefined) return { _tag: "Done" } as const satisfies State
        const toRun: Array<Step.Step> = []
        const changesBefore = changes
        for (const step of current) {
          const done = cachedAt(step, changesBefore)
          if (done !== undefined) yield* emit({ type: "step.cached", revision, id: step.id, result: done.result })
          else toRun.push(step)
        }
        const spent = Budget.spend(steps, toRun.length)
        if (spent._tag === "Failure") return { _tag: "Failed", reason: "step_budget" } as const
        steps = spent.success
        for (const step of toRun) {
          yield* emit({ type: "step.started", revision, step, tool_use_id: toolUseId(sessionId, revision, step.id) })
        }
        const callOf = (step: Step.Step) => ({
          id: toolUseId(sessionId, revision, step.id),
          name: step.tool_name,
          input: step.args
        })
        // A group's steps side by side, as the plan says (not in lanes: the plan's groups decide).
        const outcomes = yield* Execute.executeAll(options.toolset, toRun.map(callOf), {
          timeout: options.timeout,
          concurrency: "unbounded",
          lanes: false
        })
        let failed: { readonly step: Step.Step; readonly error: string } | undefined
        let changed = false
        for (const [i, step] of toRun.entries()) {
          const outcome = outcomes[i] as Outcome.Outcome
          // A replayed outcome counts as what it replays: that call ran, at its time.
          if (!Outcome.didNotRun(outcome) && mayChange(step.tool_name)) changed = true
          if (Outcome.isError(outcome)) {
            history.push({ ...step, result: null, error: outcome.content })
            yield* emit({
              type: "step.failed",
              revision,
              id: step.id,
              error: outcome.content,
              not_executed: Outcome.didNotRun(outcome)
            })
            failed ??= { step, error: outcome.content }
          } else {
            history.push({ ...step, result: outcome.content, error: null })
            succeeded.set(step.id, {
              id: step.id,
              tool_name: step.tool_name,
              args: step.args,
              result: outcome.content,
              readOnly: isReadOnly(step.tool_name),
              changes: changesBefore
            })
            yield* emit({ type: "step.succeeded", revision, id: step.id, result: outcome.content })
          }
        }
        if (changed) changes++
        if (failed === undefined) return { _tag: "Exec", plan, runs, run: index + 1 } as const satisfies State
        switch (strategy) {
          case "abort":
            return { _tag: "Failed", reason: "aborted" } as const satisfies State
          case "skip":
            anyFailed = true
            return { _tag: "Exec", plan, runs, run: index + 1 } as const satisfies State
          case "replan": {
            const from = plan.indexOf(failed.step)
            return { _tag: "Replan", remaining: plan.slice(from), lastError: failed.error } as const satisfies State
          }
        }
      })

    const replan = (remaining: Step.Plan, lastError: string) =>
      Effect.gen(function* () {
        const spent = Budget.spend(replans, 1)
        if (spent._tag === "Failure") return { _tag: "Failed", reason: "replan_budget" } as const satisfies State
        replans = spent.success
        const asked = yield* ask(lastError)
        if (asked._tag === "Failure") return yield* refuse(remaining, asked.failure)
        return yield* accept(asked.success, remaining, lastError)
      })

    const first = yield* ask(null)
    let state: State =
      first._tag === "Failure" ? yield* refuse([], first.failure) : yield* accept(first.success, [], null)
    while (state._tag === "Exec" || state._tag === "Replan") {
      state =
        state._tag === "Exec"
          ? yield* exec(state.plan, state.runs, state.run)
          : yield* replan(state.remaining, state.lastError)
    }
    const reason: Reason = state._tag === "Done" ? (anyFailed ? "partial" : "goal_met") : state.reason
    const status = statusOf(reason)
    yield* emit({ type: "session.finished", status, reason, session_id: sessionId })
    if (traced) yield* Effect.annotateCurrentSpan(SessionSpans.sessionEnd(reason, status, steps.used, replans.used))
    const result: SessionResult = {
      session_id: sessionId,
      status,
      reason,
      history,
      revisions,
      events,
      steps: steps.used,
      replans: replans.used,
      ...(meter === undefined ? {} : { spent: Spending.wire((yield* meter.current).spent) })
    }
    yield* SessionTrace.record(() => SessionTrace.resultEntry(result))
    return result
  })

/**
 * How many events a stream of a session holds before the session waits for its reader.
 *
 * @since 0.1.0
 */
export const eventBuffer = 1024

/**
 * The events of a session as a `Stream`, ending with `session.finished`. The session waits when
 * its reader falls `eventBuffer` events behind, and keeps no copy of the events it has handed
 * on, so a long session streams in constant memory (beyond its history).
 *
 * @since 0.1.0
 */
export const events = <T extends Tool.Any, E, R>(
  options: Omit<Options<T, E, R>, "onEvent">
): Stream.Stream<Event, Exclude<E, Spend.Exhausted>, R | Tool.Services<T>> =>
  Stream.callback<Event, Exclude<E, Spend.Exhausted>, R | Tool.Services<T>>(
    (queue: Queue.Queue<Event, Exclude<E, Spend.Exhausted> | Cause.Done>) =>
      Effect.andThen(
        runWith({ ...options, onEvent: (event) => Effect.asVoid(Queue.offer(queue, event)) }, false),
        Queue.end(queue)
      ),
    { bufferSize: eventBuffer, strategy: "suspend" }
  )
