/** The cases of the property test (Property.test.ts): seeded random histories through every strategy and `compact`. */
import type { Message } from "@agent-harness/executor"
import { Effect, Exit } from "effect"
import { Compaction, Estimate, Strategy } from "../src/index.ts"
import * as Generate from "./generate.ts"

const summaries = ["short summary", "a longer summary of what was done so far. ".repeat(8)]

/** A strategy under test: its name, and how many of the last turns it must leave as they are. */
type Case = readonly [name: string, strategy: Strategy.Strategy, keepLast: number]

/** The strategies under test, with random options: each of the three and a chain of them (`compact` runs the default). */
const strategies = (random: Generate.Random): ReadonlyArray<Case> => {
  const summary = summaries[Generate.int(random, 0, 1)] as string
  const keepSummarized = Generate.int(random, 0, 2)
  const summarizer = Strategy.summarize({
    keepLast: keepSummarized,
    reserve: Generate.int(random, 0, 100),
    summarize: (turns) => Effect.succeed(`${summary} (${turns.length} messages)`)
  })
  const keepElided = Generate.int(random, 0, 3)
  const elide = Strategy.elideToolResults({ keepLast: keepElided })
  const keepDropped = Generate.int(random, 0, 2)
  const drop = Strategy.dropOldestTurns({ keepFirstUser: random() < 0.8, keepLast: keepDropped })
  return [
    ["elide", elide, keepElided],
    ["drop", drop, keepDropped],
    ["summarize", summarizer, keepSummarized],
    ["chain", Strategy.chain(elide, summarizer, drop), Math.min(keepElided, keepSummarized, keepDropped)]
  ]
}

/** Whether the last `keepLast` turns of `history` end `messages` as they were (the same objects). */
const keptTail = (
  history: ReadonlyArray<Message.Message>,
  messages: ReadonlyArray<Message.Message>,
  keepLast: number
): boolean => {
  if (keepLast === 0) return true
  let start = history.length
  let turns = 0
  while (start > 0 && turns < keepLast) {
    start--
    if (history[start]?.role === "assistant") turns++
  }
  if (turns < keepLast) return true // fewer turns than kept: nothing to compare the tail with
  const tail = history.length - start
  if (messages.length < tail) return false
  for (let i = 1; i <= tail; i++) if (messages[messages.length - i] !== history[history.length - i]) return false
  return true
}

interface Facts {
  readonly uses: ReadonlyMap<string, number>
  readonly results: ReadonlyMap<string, boolean>
}

/** Every tool_use id (with how often it appears) and every tool_result id (with its is_error). */
const facts = (messages: ReadonlyArray<Message.Message>): Facts => {
  const uses = new Map<string, number>()
  const results = new Map<string, boolean>()
  for (const m of messages) {
    if (m.role === "assistant") {
      for (const b of m.content) if (b.type === "tool_use") uses.set(b.id, (uses.get(b.id) ?? 0) + 1)
    } else if (m.role === "user" && typeof m.content !== "string") {
      for (const b of m.content) if (b.type === "tool_result") results.set(b.tool_use_id, b.is_error)
    }
  }
  return { uses, results }
}

/** The first broken property of `result` (compacted from `history`), or undefined. */
const problemOf = (
  estimate: Estimate.Estimator,
  history: ReadonlyArray<Message.Message>,
  before: Facts,
  beforeTokens: number,
  result: Strategy.Result
): string | undefined => {
  const pairing = Compaction.pairingProblem(result.messages)
  if (pairing !== undefined) return `pairing: ${pairing}`
  const after = facts(result.messages)
  const listed = new Set(result.removed.flatMap((r) => (r.kind === "elided" ? [] : r.tool_use_ids)))
  for (const [id, isError] of before.results) {
    const kept = after.uses.get(id)
    const keptResult = after.results.get(id)
    if (kept === undefined && keptResult === undefined) {
      if (!listed.has(id)) return `tool_use ${id} went without being listed as removed`
      continue
    }
    if (kept !== 1 || keptResult === undefined)
      return `tool_use ${id} kept ${kept ?? 0} times, its result kept: ${keptResult !== undefined}`
    if (keptResult !== isError) return `tool_result ${id} changed is_error`
  }
  for (const id of after.uses.keys()) if (!before.uses.has(id)) return `tool_use ${id} appeared from nowhere`
  const afterTokens = Estimate.total(result.messages, estimate)
  if (afterTokens > beforeTokens) return `estimate grew from ${beforeTokens} to ${afterTokens}`
  if (result.messages.length > history.length + 1) return "the history got longer"
  return undefined
}

/**
 * The floor: the system messages, the first user message with the drop note, the last turn
 * (or the whole history when that is smaller). Computed here from the layout, not by the
 * strategies' code; the note costs `ceil(length / 4)` more tokens merged into the first user message.
 */
const floorOf = (history: ReadonlyArray<Message.Message>, estimate: Estimate.Estimator): number => {
  const firstAssistant = history.findIndex((m) => m.role === "assistant")
  if (firstAssistant < 0) return Estimate.total(history, estimate)
  let lastAssistant = history.length - 1
  while (history[lastAssistant]?.role !== "assistant") lastAssistant--
  const turns = history.filter((m) => m.role === "assistant").length
  const kept =
    Estimate.total(history.slice(0, firstAssistant), estimate) + Estimate.total(history.slice(lastAssistant), estimate)
  if (turns < 2) return kept
  // Dropping saves nothing when the turns are smaller than the note: then the floor is the history.
  const dropped = kept + Math.ceil(Strategy.droppedNote(turns - 1).length / Estimate.bytesPerToken)
  return Math.min(dropped, Estimate.total(history, estimate))
}

/** Runs `count` cases from `seed`; the first broken property, with the seed, the case and the history, or undefined. */
export const run = (seed: number, count: number): string | undefined => {
  // Every CannotCompact is an Error: without stack traces, the cases that expect one cost less.
  const stackTraceLimit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return cases(seed, count)
  } finally {
    Error.stackTraceLimit = stackTraceLimit
  }
}

const cases = (seed: number, count: number): string | undefined => {
  const random = Generate.prng(seed)
  for (let i = 0; i < count; i++) {
    const history = Generate.history(random)
    // One memoized estimator per history: each message is read once, whichever strategy asks.
    const estimate = Estimate.memoized(Estimate.message)
    const before = facts(history)
    const tokens = Estimate.total(history, estimate)
    const target = Math.floor(random() * tokens * 1.1)
    const where = (what: string) =>
      `seed ${seed}, case ${i}, ${what}, target ${target}: ${JSON.stringify(history).slice(0, 2000)}`
    for (const [name, strategy, keepLast] of strategies(random)) {
      const result = Effect.runSync(strategy(history, target, estimate))
      const problem = problemOf(estimate, history, before, tokens, result)
      if (problem !== undefined) return `${where(name)}: ${problem}`
      if (!keptTail(history, result.messages, keepLast)) return `${where(name)}: the last ${keepLast} turns changed`
    }
    const window = Math.max(1, Math.floor(tokens * (0.2 + random())))
    const threshold = 0.3 + random() * 0.7
    const exit = Effect.runSyncExit(Compaction.compact(history, { window, threshold, estimate }))
    const floor = floorOf(history, estimate)
    const triggered = tokens > threshold * window
    if (Exit.isSuccess(exit)) {
      const problem = problemOf(estimate, history, before, tokens, exit.value)
      if (problem !== undefined) return `${where(`compact, window ${window}`)}: ${problem}`
      if (exit.value.after > window) return `${where("compact")}: ${exit.value.after} tokens over the window ${window}`
    } else if (!(triggered && floor > window)) {
      return `${where(`compact, window ${window}, floor ${floor}`)}: ${String(exit.cause)}`
    }
  }
  return undefined
}
