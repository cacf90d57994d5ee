/**
 * What the Postgres soak runs: odd runs are durable plan sessions, even runs durable
 * conversations, each playing the soak conversation of its seed (`SoakConversation`: appends
 * and writes, three in four appends) in its own folder `r<run>` of a durable environment shared
 * by the runners. A plan session's plan is the conversation's calls, each turn's calls one
 * concurrent group, step `n` for call `a<n>`/`w<n>`, failures skipped; a conversation's model
 * is the soak's canned model. Runners register both workflows; the driver starts and polls them.
 *
 * @since 0.1.0
 */
import * as nodePath from "node:path"
import { DurableLoop, DurableSession } from "@agent-harness/durable"
import { Message, Model, type Outcome } from "@agent-harness/executor"
import { FlatFiles, type Files, FileTools } from "@agent-harness/file-tools"
import { type Planner, Step } from "@agent-harness/planner"
import type { Tool } from "@agent-harness/tool-schema"
import { Effect } from "effect"
import type { ShardingConfig } from "effect/cluster"
import * as SoakConversation from "../local/SoakConversation.ts"

/**
 * One run of the soak.
 *
 * @since 0.1.0
 */
export interface Run {
  /** From 1. */
  readonly run: number
  readonly seed: number
  readonly kind: "session" | "conversation"
  /** The session or conversation id (unique in the soak's database). */
  readonly id: string
}

/**
 * The cluster's settings in the soak (runners and driver alike): few shards, and short lock,
 * poll and health intervals, so a killed runner's sessions are taken over within seconds.
 *
 * @since 0.1.0
 */
export const sharding: Partial<ShardingConfig.ShardingConfig["Service"]> = {
  shardsPerGroup: 32,
  shardLockRefreshInterval: "1 second",
  shardLockExpiration: "6 seconds",
  refreshAssignmentsInterval: "1 second",
  entityMessagePollInterval: "500 millis",
  entityReplyPollInterval: "200 millis",
  runnerHealthCheckInterval: "2 seconds",
  sendRetryInterval: "100 millis"
}

/**
 * Run `run` of a soak: a plan session when odd, a conversation when even.
 *
 * @since 0.1.0
 */
export const runOf = (run: number, seed: number): Run => ({
  run,
  seed,
  kind: run % 2 === 1 ? "session" : "conversation",
  id: `run-${run}-seed-${seed}`
})

/**
 * The folder of a run in the environment.
 *
 * @since 0.1.0
 */
export const folderOf = (run: number): string => `r${run}`

/** The run and seed a session's goal or a conversation's request names. */
const pattern = /run (\d+), seed (\d+)/

const parse = (text: string): { readonly run: number; readonly seed: number } | undefined => {
  const match = pattern.exec(text)
  return match === null ? undefined : { run: Number(match[1]), seed: Number(match[2]) }
}

/**
 * The text naming a run: a session's goal, a conversation's request.
 *
 * @since 0.1.0
 */
export const request = (run: Run): string => `Log every step of run ${run.run}, seed ${run.seed}.`

/**
 * The calls of a run: its seed's conversation, the paths in its folder.
 *
 * @since 0.1.0
 */
export const turns = (run: number, seed: number): ReadonlyArray<ReadonlyArray<SoakConversation.Call>> =>
  SoakConversation.conversation(seed).turns.map((calls) =>
    calls.map((call) => ({ ...call, input: { ...call.input, path: `${folderOf(run)}/${call.input.path}` } }))
  )

/**
 * The number in a call id (`a17` → 17): the step id of that call in a plan session.
 *
 * @since 0.1.0
 */
export const stepId = (callId: string): number => Number(callId.slice(1))

/**
 * The plan of a run: every call a step, each turn's calls one concurrent group.
 *
 * @since 0.1.0
 */
export const plan = (run: number, seed: number): Step.Plan =>
  turns(run, seed).flatMap((calls, t) =>
    calls.map((call) => Step.make(stepId(call.id), call.name, call.input, `${call.name} ${call.id}`, `turn-${t + 1}`))
  )

/** The soak's planner: the run's plan first; nothing after a failure (failures are skipped). */
const planner: Planner.Planner = (request) =>
  Effect.sync(() => {
    const named = parse(request.goal)
    return named === undefined || request.lastError !== null ? [] : plan(named.run, named.seed)
  })

/**
 * The soak's model: the canned conversation of the run its request names, its paths in the
 * run's folder.
 *
 * @since 0.1.0
 */
export const model: Model.Shape = Model.fromReply(({ messages }) =>
  Effect.sync(() => {
    const first = messages.find((m) => m.role === "user")
    const named = first === undefined || typeof first.content !== "string" ? undefined : parse(first.content)
    if (named === undefined) return [Message.text("Nothing to log.")]
    const calls = turns(named.run, named.seed)[messages.filter((m) => m.role === "assistant").length]
    return calls === undefined
      ? [Message.text("All logged.")]
      : calls.map((call) => Message.toolUse(call.id, call.name, call.input))
  })
)

/**
 * The opening messages of a run's conversation.
 *
 * @since 0.1.0
 */
export const opening = (run: Run): ReadonlyArray<Message.Message> => [
  Message.system("You keep logs. Use append and write."),
  Message.user(request(run))
]

/** Sees each outcome with its session or conversation id (the runner prints it). */
type OnOutcome = (outcome: Outcome.Outcome, id: string) => Effect.Effect<void>

/**
 * The soak's plan sessions.
 *
 * @since 0.1.0
 */
export const sessions = (onOutcome?: OnOutcome | undefined) =>
  DurableSession.make("agent-harness/soak-session", {
    toolset: FileTools.english,
    planner,
    onFailure: "skip",
    maxSteps: 10_000,
    maxReplans: 0,
    onOutcome
  })

/**
 * The permission of the soak's conversations when they run with approvals: the policy
 * (`PgSoakApprovals.policy`) and who is told when a call starts to wait.
 *
 * @since 0.1.0
 */
export type Permission = NonNullable<DurableLoop.Definition<Tool.Any>["permission"]>

/**
 * The soak's conversations; behind a permission gate when `permission` is given (its asked
 * calls parked in the runner's `DurableApprovals`).
 *
 * @since 0.1.0
 */
export const conversations = (onOutcome?: OnOutcome | undefined, permission?: Permission | undefined) =>
  DurableLoop.make("agent-harness/soak-conversation", {
    toolset: FileTools.english,
    maxTurns: 40,
    onOutcome,
    permission
  })

/**
 * The environment of the runners: `r<run>/<file>` is the file `<file>` of a `FlatFiles` folder
 * `<root>/r<run>` (one folder per run, as the local soak has). A path outside any run's folder
 * is refused.
 *
 * @since 0.1.0
 */
export const folders = (root: string): Files.FilesShape => {
  const opened = new Map<string, Files.FilesShape>()
  const folder = (path: string) =>
    Effect.suspend(() => {
      const slash = path.indexOf("/")
      const name = path.slice(0, slash)
      if (slash <= 0 || !/^r\d+$/.test(name)) {
        return Effect.die(new RangeError(`the soak's paths are r<run>/<file>, not ${JSON.stringify(path)}`))
      }
      const known = opened.get(name)
      if (known !== undefined) return Effect.succeed({ files: known, path: path.slice(slash + 1) })
      return Effect.map(Effect.orDie(FlatFiles.make(nodePath.join(root, name))), (files) => {
        opened.set(name, files)
        return { files, path: path.slice(slash + 1) }
      })
    })
  const none = Effect.succeed([])
  return {
    read: (path) => Effect.flatMap(folder(path), (at) => at.files.read(at.path)),
    write: (path, content) => Effect.flatMap(folder(path), (at) => at.files.write(at.path, content)),
    append: (path, content) => Effect.flatMap(folder(path), (at) => at.files.append(at.path, content)),
    list: none,
    entries: none,
    snapshot: Effect.succeed({})
  }
}
