/**
 * The loop itself, once: `Loop.run` drives it with nothing to show, `Loop.stream` with an
 * `emit` that puts each event on the stream. Both go through the same steps in the same order
 * and record the same trace, so their results, traces and observations are the same.
 *
 * @internal
 */
import { Budget, Deadline, Spend, SpendMeter } from "@agent-harness/budgets"
import type { Tool } from "@agent-harness/tool-schema"
import { Deferred, Effect, Fiber, Result, type Tracer } from "effect"
import * as Boundary from "../Boundary.ts"
import * as Breaker from "../Breaker.ts"
import * as Execute from "../Execute.ts"
import type * as Loop from "../Loop.ts"
import * as Message from "../Message.ts"
import { Model, ModelError } from "../Model.ts"
import * as Outcome from "../Outcome.ts"
import * as Progress from "../Progress.ts"
import * as ReplyPart from "../ReplyPart.ts"
import * as Spans from "../Spans.ts"
import * as Spending from "../Spending.ts"
import * as Trace from "../Trace.ts"
import * as Spanning from "./spans.ts"
import * as Steps from "./steps.ts"

/** The turn cap when none is given (`Loop.defaultMaxTurns`). */
export const defaultMaxTurns = 10

/** Puts one event where the caller reads it (`Loop.stream`). */
export type Emit = (event: Loop.Event) => Effect.Effect<void>

/** A turn's model call cut short by the `interrupt` option. */
const cut = Symbol("cut")

/**
 * Runs the loop; with `emit`, streams each turn (`Model.partsOf`) and emits its events as they
 * happen. Fails with `InvalidOption` before anything runs, otherwise only with a `ModelError`.
 */
export const drive = <T extends Tool.Any>(
  options: Loop.Options<T>,
  emit: Emit | undefined,
  invalid: (problem: Boundary.OptionProblem) => Loop.InvalidOption
): Effect.Effect<Loop.RunResult, ModelError | Loop.InvalidOption, Model | Tool.Services<T>> =>
  Effect.gen(function* () {
    const problem = Boundary.optionProblem(options)
    if (problem !== undefined) return yield* invalid(problem)
    const model = yield* Model
    const meter = options.spend === undefined ? undefined : SpendMeter.from(options.spend)
    const outputCap = options.maxOutputTokens ?? model.maxOutputTokens
    if (meter !== undefined && Spend.isLimited(yield* meter.current)) {
      if (outputCap === undefined || !Number.isSafeInteger(outputCap) || outputCap < 1) {
        return yield* invalid({
          option: "maxOutputTokens",
          problem: `must be a whole number of at least 1 with a limited 'spend' (the output side of each call's worst case), got ${String(outputCap)}`
        })
      }
    }
    const spanning = yield* Spanning.spanning
    const given = yield* Effect.service(Trace.Trace)
    // Read spans: the trace events that are span events go on the current span too.
    const trace = spanning.traced ? Spanning.withSpanEvents(given, Trace.recordOn) : given
    let agentSpan: Tracer.Span | undefined
    const record = (event: Trace.Event) => Trace.recordOn(trace, event)
    let budget = options.turns ?? Budget.turns(options.maxTurns ?? defaultMaxTurns)
    const deadline = options.timeLimit === undefined ? undefined : yield* Deadline.start(options.timeLimit)
    const harness = yield* Execute.harness
    const outerReporter = yield* Progress.Reporter
    const messages: Array<Message.Message> = [...options.messages]
    const turns: Array<Loop.Turn> = []
    const breaker = options.breaker
    const watch = breaker === undefined ? undefined : Breaker.watch(breaker, harness.catalog)
    // The `interrupt` option, watched beside the run: once it fires no call starts (a call of
    // the turn in hand is answered `not executed`, `Outcome.stopped`) and no model call either.
    const stop = options.interrupt === undefined ? undefined : yield* Deferred.make<void>()
    let stopped = false
    const watcher =
      stop === undefined || options.interrupt === undefined
        ? undefined
        : yield* Effect.forkChild(
            Effect.andThen(
              options.interrupt,
              Effect.suspend(() => {
                stopped = true
                return Deferred.succeed(stop, undefined)
              })
            )
          )
    const executeOptions: Execute.AllOptions = { timeout: options.timeout, concurrency: options.concurrency ?? 1 }
    // Yielding first lets the watcher, woken by an interrupt that just fired, say so.
    const refuseOnceStopped: Execute.Middleware = (call, _tool, run) =>
      Effect.andThen(
        Effect.yieldNow,
        Effect.suspend(() => (stopped ? Effect.succeed(Outcome.stopped(call, harness.catalog)) : run))
      )
    let partial: ReplyPart.Folder | undefined
    let lastSent: ReadonlyArray<Message.Message> | undefined
    let ended = false
    const finish = (stop: Loop.StopReason, text: string | undefined) =>
      Effect.gen(function* () {
        ended = true
        if (agentSpan !== undefined) {
          agentSpan.attribute(Spans.Attribute.stopReason, stop)
          agentSpan.attribute(Spans.Attribute.turns, turns.length)
          Spanning.annotate(agentSpan, Spanning.runUsage(turns))
        }
        yield* record({ type: "run.ended", stop, ...(text === undefined ? {} : { text }), turns: turns.length })
        const result: Loop.RunResult = {
          stop,
          text,
          messages,
          turns,
          budget,
          ...(meter === undefined ? {} : { spend: yield* meter.current })
        }
        if (stop !== "interrupted") yield* Steps.complete(model, Math.max(turns.length, 1), messages)
        if (emit !== undefined) yield* emit({ type: "run.ended", result })
        return result
      })
    yield* record(Steps.startEvent(options.messages, budget, options.toolset, breaker))
    const told =
      emit === undefined
        ? undefined
        : {
            shown: (turn: number): Steps.Shown => ({
              text: (text) => emit({ type: "text.delta", turn, text }),
              reasoning: (text) => emit({ type: "reasoning.delta", turn, text }),
              drafted: (id, name) => emit({ type: "call.drafted", turn, tool_use_id: id, name }),
              argued: (id, delta) => emit({ type: "call.delta", turn, tool_use_id: id, delta })
            }),
            calls: (turn: number) => ({
              started: (call: Message.ToolUseBlock) => emit({ type: "call.started", turn, call }),
              answered: (outcome: Outcome.Outcome) => emit({ type: "call.answered", turn, outcome })
            })
          }
    const body = Effect.gen(function* () {
      while (true) {
        if (stop !== undefined) yield* Effect.yieldNow
        if (stopped) return yield* finish("interrupted", undefined)
        const spent = Budget.spend(budget, 1)
        if (Result.isFailure(spent)) return yield* finish("turn_cap", undefined)
        if (deadline !== undefined && Result.isFailure(yield* Effect.result(Deadline.check(deadline)))) {
          return yield* finish("time_budget", undefined)
        }
        const turn = turns.length + 1
        if (options.compact !== undefined) {
          const previous = turns.at(-1)
          const compacting = yield* Effect.mapError(
            options.compact({
              messages: [...messages],
              turn,
              ...(previous?.usage?.inputTokens === undefined
                ? {}
                : { reportedInputTokens: previous.usage.inputTokens, previousMessages: lastSent }),
              ...(meter === undefined ? {} : { spend: meter })
            }),
            (reason) => new ModelError({ turn, reason })
          )
          if (compacting._tag === "TooLarge") return yield* finish("context_window", undefined)
          if (compacting._tag === "OverBudget") {
            const { kind, limit, committed, requested, reason } = compacting.exhausted
            yield* Trace.recordOn(
              trace,
              Spending.refused.entry({ type: "spend.refused", turn, reason, kind, limit, committed, requested })
            )
            return yield* finish(reason, undefined)
          }
          if (compacting._tag === "Compacted") messages.splice(0, messages.length, ...compacting.messages)
        }
        let reservation: Spend.Reservation | undefined
        const now = meter === undefined ? undefined : yield* meter.current
        if (meter !== undefined && now !== undefined && Spend.isLimited(now)) {
          const worst = Spend.worstCase(now, Spending.requestTokens(messages, options.toolset), outputCap ?? 0)
          const reserved = yield* Effect.result(meter.reserve(worst))
          if (Result.isFailure(reserved)) {
            const { kind, limit, committed, requested, reason } = reserved.failure
            yield* Trace.recordOn(
              trace,
              Spending.refused.entry({ type: "spend.refused", turn, reason, kind, limit, committed, requested })
            )
            return yield* finish(reason, undefined)
          }
          reservation = reserved.success
        }
        budget = spent.success
        yield* record({ type: "model.requested", turn, messages: messages.length })
        if (emit !== undefined) yield* emit({ type: "turn.started", turn })
        const request = { messages: [...messages], toolset: options.toolset, turn }
        lastSent = request.messages
        partial = emit === undefined ? undefined : ReplyPart.folder()
        const plainAsk =
          told === undefined || partial === undefined
            ? Steps.ask(model, request, record)
            : Steps.askStreamed(model, request, record, told.shown(turn), partial)
        const asking = spanning.traced
          ? Spanning.chat(model, turn, outputCap, request.messages, spanning.content, plainAsk)
          : plainAsk
        const asked =
          stop === undefined
            ? yield* asking
            : yield* Effect.raceFirst(asking, Effect.as(Deferred.await(stop), cut as typeof cut))
        if (asked === cut) {
          // What a cut-off call spent is not known: its whole reservation is spent.
          if (meter !== undefined && reservation !== undefined) yield* meter.settle(reservation, undefined)
          return yield* finish("interrupted", partialText())
        }
        partial = undefined
        const { reply, about } = asked
        if (meter !== undefined) {
          const settled = yield* meter.settle(
            reservation ?? { amount: Spend.zero },
            about.usage ?? (reservation === undefined ? {} : undefined)
          )
          yield* Trace.recordOn(
            trace,
            Spending.settled.entry({
              type: "spend.settled",
              turn,
              reported: about.usage !== undefined,
              spent: Spending.wire(settled.spent),
              total: Spending.wire(settled.total)
            })
          )
        }
        messages.push(Message.assistant(reply))
        const { usage, finishReason } = about
        const seen = {
          ...(usage === undefined ? {} : { usage }),
          ...(finishReason === undefined ? {} : { finishReason })
        }
        const calls = Message.toolUses(reply)
        if (calls.length === 0) {
          const current: Loop.Turn = { turn, reply, outcomes: [], ...seen }
          turns.push(current)
          if (emit !== undefined) yield* emit({ type: "turn.ended", turn: current })
          return yield* finish("end", Message.replyText(reply))
        }
        const acting = Steps.act(options.toolset, turn, calls, {
          executeOptions,
          // The trace the run was given decides which call events are made; spans only add theirs.
          trace: given,
          spanEvents: spanning.traced,
          record,
          reporter: outerReporter,
          watch,
          breaker,
          told: told?.calls(turn)
        })
        const { outcomes, tripped } =
          stop === undefined ? yield* acting : yield* Execute.withMiddleware(acting, refuseOnceStopped, "outside")
        const current: Loop.Turn = { turn, reply, outcomes, ...seen }
        turns.push(current)
        if (options.onTurn !== undefined) yield* options.onTurn(current)
        if (emit !== undefined) yield* emit({ type: "turn.ended", turn: current })
        messages.push(Message.user(outcomes.map(Outcome.toToolResult)))
        if (breaker?.action === "stop" && tripped) {
          return yield* finish("repeated_call", undefined)
        }
      }
    })
    const partialText = (): string | undefined => {
      const text = partial?.text()
      return text === undefined || text === "" ? undefined : text
    }
    const run = spanning.traced
      ? Spanning.inSpan(
          Spans.Operation.invokeAgent,
          { kind: "internal", attributes: Spanning.agentAttributes(model) },
          (span) => {
            agentSpan = span
            return Effect.provideService(body, Trace.Trace, trace)
          }
        )
      : body
    return yield* run.pipe(
      // The run's fiber interrupted: the trace still says how it ended, with the text written so far.
      Effect.onInterrupt(() => {
        if (ended) return Effect.void
        const text = partialText()
        return record({
          type: "run.ended",
          stop: "interrupted",
          ...(text === undefined ? {} : { text }),
          turns: turns.length
        })
      }),
      Effect.ensuring(watcher === undefined ? Effect.void : Fiber.interrupt(watcher))
    )
  })
