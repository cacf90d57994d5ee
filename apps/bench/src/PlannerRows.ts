/**
 * Row 7: the executor's overhead per plan step — `Session.run` over a plan of 1,000 steps minus
 * a plan of 1, divided by 999 — beside the raw tool call it wraps.
 */
import { RulePlanner, Session, Step } from "@agent-harness/planner"
import { Effect } from "effect"
import { check, Read, toolset } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

const many = 1_000

const sessionOf = (size: number) => {
  const plan = Array.from({ length: size }, (_, i) =>
    Step.make(i + 1, "read", { path: `notes/${i}.txt`, limit: 4096 }, "the note is read")
  )
  return Session.run({
    goal: "read the notes",
    planner: RulePlanner.make([{ when: null, plan }]),
    toolset,
    maxSteps: size,
    maxReplans: 0
  })
}

const runRead = Read.run as (
  input: { readonly path: string; readonly limit: number },
  context: { readonly id: string }
) => string
const input = { path: "notes/1.txt", limit: 4096 }

export const measure = async (settings: Measure.Settings, a: number): Promise<ReadonlyArray<Table.Row>> => {
  const one = sessionOf(1)
  const all = sessionOf(many)
  const result = Effect.runSync(all)
  check(result.reason === "goal_met" && result.history.length === many, "the session runs every step")
  const results = await Measure.run(
    [
      { name: "session.1", fn: () => Effect.runSync(one) },
      { name: "session.n", fn: () => Effect.runSync(all) },
      { name: "raw", fn: () => runRead(input, { id: "step-1" }) }
    ],
    settings
  )
  const perStep = (Measure.get(results, "session.n") - Measure.get(results, "session.1")) / (many - 1)
  const raw = Measure.get(results, "raw")
  return [
    Table.perCall(
      "7",
      `executor overhead per plan step: \`Session.run\` (${many.toLocaleString("en-US")} steps − 1) ÷ ${many - 1}; the raw tool call: ${Table.ns(raw)}`,
      perStep,
      a
    )
  ]
}
