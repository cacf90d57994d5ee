/**
 * The Postgres soak's judge of one run, once every runner has stopped: what its result says of
 * each call, the marks in its folder, the journal's entries and what the runners said, life
 * after life (no append ran twice, every unfinished call reported unknown and only those; an
 * append that ran, or was reported unknown, never runs afterwards).
 *
 * @since 0.1.0
 */
import * as nodePath from "node:path"
import type { DurableLoop } from "@agent-harness/durable"
import type { Journal } from "@agent-harness/idempotency"
import type { SessionResult } from "@agent-harness/planner"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { Effect } from "effect"
import * as Soak from "../local/Soak.ts"
import type * as PgSoakRunner from "./PgSoakRunner.ts"
import * as PgSoakWorkflows from "./PgSoakWorkflows.ts"

/**
 * What a run's result says of each of its calls: the observation's text and error flag.
 *
 * @since 0.1.0
 */
export interface Observed {
  readonly content: string
  readonly isError: boolean
}

/**
 * What a plan session's result says of each call.
 *
 * @since 0.1.0
 */
export const observedOfSession = (result: SessionResult.SessionResult): ReadonlyMap<string, Observed> =>
  new Map(
    result.history.map((step) => [
      `${step.tool_name === "append" ? "a" : "w"}${step.id}`,
      { content: step.result ?? step.error ?? "", isError: step.error !== null && step.error !== undefined }
    ])
  )

/**
 * What a conversation's result says of each call.
 *
 * @since 0.1.0
 */
export const observedOfConversation = (result: DurableLoop.Result): ReadonlyMap<string, Observed> => {
  const observed = new Map<string, Observed>()
  for (const message of result.messages) {
    if (message.role !== "user" || typeof message.content === "string") continue
    for (const block of message.content) {
      if (block.type === "tool_result") {
        observed.set(block.tool_use_id, { content: block.content, isError: block.is_error })
      }
    }
  }
  return observed
}

/**
 * The soak's call id of a journal entry of a run, or `undefined` when it is another run's.
 *
 * @since 0.1.0
 */
export const callIdOfEntry = (run: PgSoakWorkflows.Run, entry: Journal.Entry): string | undefined => {
  const prefix = `${run.id}/`
  if (!entry.id.startsWith(prefix)) return undefined
  const rest = entry.id.slice(prefix.length)
  const step = /^step-\d+-(\d+)$/.exec(rest)
  return step === null ? rest : `${entry.name === "append" ? "a" : "w"}${step[1]}`
}

/**
 * What one run ended with.
 *
 * @since 0.1.0
 */
export interface Ended {
  readonly run: PgSoakWorkflows.Run
  readonly observed: ReadonlyMap<string, Observed> | undefined
  readonly millis: number
  readonly problem: string | undefined
  /** Given up: nothing was heard of it for a long time, and no answer to it was still to come. */
  readonly stalled?: boolean | undefined
}

/**
 * Checks one run once every runner has stopped; its violations, and its figures.
 *
 * @since 0.1.0
 */
export const check = (
  ended: Ended,
  root: string,
  entries: ReadonlyArray<Journal.Entry>,
  lines: ReadonlyArray<PgSoakRunner.OutcomeLine>
) =>
  Effect.gen(function* () {
    const { run } = ended
    const violations: Array<string> = []
    const violation = (text: string) => violations.push(`run ${run.run} (${run.kind}, seed ${run.seed}): ${text}`)
    if (ended.problem !== undefined) violation(ended.problem)
    const calls = PgSoakWorkflows.turns(run.run, run.seed).flat()
    const unknownText = MessageCatalog.english.outcomeUnknown
    const observed = ended.observed ?? new Map<string, Observed>()
    const unknown = new Set([...observed].filter(([, o]) => o.content === unknownText).map(([id]) => id))
    if (ended.observed !== undefined) {
      const missing = calls.filter((call) => !observed.has(call.id)).map((call) => call.id)
      if (missing.length > 0) violation(`its result does not answer ${missing.join(", ")}`)
    }
    const counts = yield* Effect.orDie(Soak.countMarks(nodePath.join(root, PgSoakWorkflows.folderOf(run.run))))
    let duplicated = 0
    for (const [id, count] of counts) {
      if (count > 1) {
        duplicated += 1
        violation(`${id} ran ${count} times: its mark is in the files ${count} times`)
      }
    }
    const journal = new Map<string, Journal.Entry>()
    for (const entry of entries) {
      const id = callIdOfEntry(run, entry)
      if (id !== undefined) journal.set(id, entry)
    }
    const unfinished = [...journal].filter(([, e]) => e.state === "started").map(([id]) => id)
    for (const id of unfinished) {
      if (!unknown.has(id))
        violation(`${id} is started in the journal and its result does not report it outcome unknown`)
    }
    for (const id of unknown) {
      if (journal.get(id)?.state !== "started") {
        violation(`${id} is reported outcome unknown and the journal does not hold it as started`)
      }
      if ((counts.get(id) ?? 0) > 1) violation(`${id} is reported outcome unknown and ran more than once`)
    }
    for (const [id, entry] of journal) {
      if (entry.state === "done" && entry.name === "append" && (counts.get(id) ?? 0) !== 1) {
        violation(`${id} finished, and its mark is in the files ${counts.get(id) ?? 0} times`)
      }
    }
    // What the runners said, life after life: an append that ran, or was reported unknown, never runs again.
    const mine = lines.filter((line) => line.session === run.id)
    const settled = new Map<string, string>()
    let replayed = 0
    for (const line of mine) {
      if (line.outcome === "Replayed") {
        replayed += 1
        continue
      }
      if (line.outcome === "NotExecuted" || line.outcome === "Refused") {
        violation(`${line.id} was ${line.outcome} on a runner`)
        continue
      }
      const now = line.failure === "OutcomeUnknown" ? "reported outcome unknown" : "ran"
      const before = settled.get(line.id)
      // Reported unknown again is not run again: every later run finds the same started mark and
      // says so (a run resumed after each answer does, as an activity delivered again did).
      const again = before === "reported outcome unknown" && now === before
      if (before !== undefined && !again && line.id.startsWith("a"))
        violation(`${line.id} ${before}, then ${now} again`)
      settled.set(line.id, now)
    }
    return {
      violations,
      marks: counts,
      duplicated,
      unknown: unknown.size,
      unfinished: unfinished.length,
      replayed,
      calls: calls.length
    }
  })
