/**
 * Row 6: memory of a long session streamed to a sink. `Session.events` of a session that emits
 * 1,000,000 events is drained with `Stream.runDrain`; the heap (after a full collection) is read
 * after 10,000 events and at the last one, while the session is still running.
 *
 * The session: one group of 1,000 concurrent steps, one of which (a read-only check) always
 * fails; the planner proposes the same group again, so every revision re-uses the 999 results it
 * already has (`step.cached`: nothing that may change the environment ran in between), runs the
 * failing check again and replans, with an empty diff. What a session
 * keeps by contract (its history and its revisions) grows by one step and one empty diff per
 * revision, so what the heap shows is the event path.
 */
import { type Planner, Session, Step } from "@agent-harness/planner"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, Schema, Stream } from "effect"
import { check, Read } from "./Fixtures.ts"
import { heapUsed } from "./Gc.ts"
import type * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

const Fails = Tool.make("check", {
  description: "A read-only check that always fails",
  parameters: Schema.Struct({ target: Schema.String }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: () => Effect.fail("disk full")
})

const planSize = 1_000
const eventsWanted = 1_000_000
const early = 10_000

const plan: Step.Plan = [
  Step.make(0, "check", { target: "disk" }, "the disk has room", "batch"),
  ...Array.from({ length: planSize - 1 }, (_, i) =>
    Step.make(i + 1, "read", { path: `notes/${i}.txt`, limit: 4096 }, "the note is read", "batch")
  )
]

/** Events of the first plan (created, every step started, 999 succeeded, one failed), then of each revision. */
const first = 1 + 2 * planSize
const perRevision = planSize + 3

export const measure = async (_settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const planner: Planner.Planner = () => Effect.succeed(plan)
  // A few revisions past the mark: the session is still running (and holding what it holds)
  // when the reader reaches the millionth event.
  const revisions = Math.ceil((eventsWanted - first) / perRevision) + 5
  let count = 0
  let atEarly = 0
  let atEnd = 0
  const started = performance.now()
  await Effect.runPromise(
    Session.events({
      goal: "read the notes",
      planner,
      toolset: Toolset.make(Read, Fails),
      onFailure: "replan",
      maxSteps: 10_000_000,
      maxReplans: revisions
    }).pipe(
      Stream.tap(() =>
        Effect.sync(() => {
          count++
          if (count === early) atEarly = heapUsed()
          if (count === eventsWanted) atEnd = heapUsed()
        })
      ),
      Stream.runDrain
    )
  )
  const seconds = (performance.now() - started) / 1000
  check(count > eventsWanted && atEnd > 0, `the session emits more than ${eventsWanted} events (${count})`)
  const ratio = atEnd / atEarly
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
  return [
    {
      id: "6",
      label: `heap after ${eventsWanted.toLocaleString("en-US")} streamed session events ÷ after ${early.toLocaleString("en-US")} (${mb(atEnd)} vs ${mb(atEarly)}; ${seconds.toFixed(1)} s)`,
      value: `×${Table.times(ratio)}`,
      target: "≤ 1.2",
      met: ratio <= 1.2
    }
  ]
}
