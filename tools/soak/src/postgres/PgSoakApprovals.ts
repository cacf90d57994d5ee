/**
 * What the Postgres soak's conversations ask with `--approvals`: the policy in front of their
 * journal (every `append` to a run's `log-1.txt` asked, about one call in four; the other
 * appends and every write allowed), which calls it asks about, the answer the soak gives each
 * (approve or deny, chosen by the run's seed and the call), and the line a runner prints when a
 * call starts to wait.
 *
 * @since 0.1.0
 */
import type { Approvals } from "@agent-harness/idempotency"
import { Predicate } from "effect"
import type * as SoakConversation from "../local/SoakConversation.ts"
import * as PgSoakWorkflows from "./PgSoakWorkflows.ts"

/**
 * Who answers in the soak (an answer's `by`).
 *
 * @since 0.1.0
 */
export const answerer = "agent-harness soak"

/**
 * Why the soak denies a call: the model reads `not executed: denied: <this>`.
 *
 * @since 0.1.0
 */
export const denyReason = "the soak said no"

/**
 * The policy of the soak's conversations with approvals.
 *
 * @since 0.1.0
 */
export const policy: PgSoakWorkflows.Permission["policy"] = {
  rules: [
    {
      tool: "append",
      args: { path: "*/log-1.txt" },
      decision: "ask",
      reason: "the soak asks about appends to log-1.txt"
    },
    { tool: ["append", "write"], decision: "allow" }
  ],
  default: "deny"
}

/**
 * Whether the policy asks about a call of a run (its path in the run's folder).
 *
 * @since 0.1.0
 */
export const asks = (call: SoakConversation.Call): boolean =>
  call.name === "append" && call.input.path.endsWith("/log-1.txt")

/**
 * Whether the soak approves a call (`true`) or denies it: about three in five approved, the
 * same call of the same seed always answered the same way.
 *
 * @since 0.1.0
 */
export const approves = (seed: number, callId: string): boolean => {
  let h = (Math.imul(seed, 2654435761) ^ Math.imul(Number(callId.slice(1)), 40503)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 2246822507) >>> 0
  h = Math.imul(h ^ (h >>> 13), 3266489909) >>> 0
  return ((h ^ (h >>> 16)) >>> 0) % 5 < 3
}

/**
 * The answer the soak gives to a call of seed `seed`.
 *
 * @since 0.1.0
 */
export const answerFor = (seed: number, callId: string): Approvals.Answer =>
  approves(seed, callId) ? { approve: true, by: answerer } : { approve: false, by: answerer, reason: denyReason }

/**
 * The run a session id names (`run-3-seed-12`), or `undefined`.
 *
 * @since 0.1.0
 */
export const runOfSession = (session: string): PgSoakWorkflows.Run | undefined => {
  const match = /^run-(\d+)-seed-(\d+)$/.exec(session)
  return match === null ? undefined : PgSoakWorkflows.runOf(Number(match[1]), Number(match[2]))
}

/**
 * What a runner prints when a call starts to wait for its answer (parked, or found parked and
 * unanswered by a resumed run): `{"parked":{…}}`.
 *
 * @since 0.1.0
 */
export interface ParkedLine {
  /** The approval's id. */
  readonly id: string
  /** The conversation. */
  readonly session: string
  /** The call's id (`a17`). */
  readonly call: string
  /** The input's digest. */
  readonly digest: string
  /** When it was parked, as the store keeps it. */
  readonly askedAt: number
}

/**
 * The line of a parked approval, as a runner prints it (snake_case on the wire).
 *
 * @since 0.1.0
 */
export const parkedLine = (approval: Approvals.Approval) => ({
  parked: {
    id: approval.id,
    session: approval.session,
    call: approval.toolUseId,
    digest: approval.digest,
    asked_at: approval.askedAt
  }
})

/**
 * A runner's `parked` line read back, or `undefined` when the line is not one.
 *
 * @since 0.1.0
 */
export const readParked = (line: unknown): ParkedLine | undefined => {
  if (!Predicate.isObject(line) || !Predicate.isObject(line.parked)) return undefined
  const { id, session, call, digest, asked_at } = line.parked
  return typeof id === "string" &&
    typeof session === "string" &&
    typeof call === "string" &&
    typeof digest === "string" &&
    typeof asked_at === "number"
    ? { id, session, call, digest, askedAt: asked_at }
    : undefined
}
