/**
 * Row 4: `harness test` throughput — 10,000 small conversation scenarios generated into a temp
 * folder and run through the CLI's own path (`Suite.collect` + `Suite.runAll` on Node's
 * platform services, reading files synchronously as the CLI does: `SyncFileSystem.overlay`),
 * timed as one wall-clock run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { Suite } from "@agent-harness/scenario"
import * as SyncFileSystem from "@agent-harness/scenario/SyncFileSystem"
import { Effect, Layer, Result } from "effect"
import { check } from "./Fixtures.ts"
import type * as Measure from "./Measure.ts"
import type * as Table from "./Table.ts"

/** How many scenarios row 4 (and row 12) runs. */
export const count = 10_000

/** A small conversation: one turn with a read that succeeds and one that is refused, then the answer. */
export const scenario = (i: number) => ({
  format: 1,
  kind: "conversation",
  name: `generated ${i}`,
  system: "You work with the user's files through your tools.",
  user: "What does a.txt say?",
  files: { "a.txt": `hello ${i}` },
  turns: [
    {
      reply: [
        { type: "text", text: "Let me read it." },
        { type: "tool_use", id: "c1", name: "read", input: { path: "a.txt" } },
        { type: "tool_use", id: "c2", name: "read", input: { file: "a.txt" } }
      ],
      expect: [
        { type: "tool_result", tool_use_id: "c1", is_error: false, content: `hello ${i}` },
        { type: "tool_result", tool_use_id: "c2", is_error: true, content: "not executed: missing field 'path'" }
      ]
    },
    { reply: [{ type: "text", text: `It says hello ${i}.` }] }
  ],
  outcome: { stop: "end", text: `It says hello ${i}.`, files: { "a.txt": `hello ${i}` } }
})

/** `n` generated scenarios written into a new temporary folder (`s00000.json`…); the caller removes it. */
export const writeScenarios = (n: number = count): string => {
  const dir = mkdtempSync(join(tmpdir(), "harness-bench-"))
  for (let i = 0; i < n; i++)
    writeFileSync(join(dir, `s${String(i).padStart(5, "0")}.json`), JSON.stringify(scenario(i)))
  return dir
}

export const measure = async (_settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const dir = writeScenarios()
  try {
    const started = performance.now()
    const entries = await Effect.runPromise(
      Effect.flatMap(Suite.collect([dir]), (files) => Suite.runAll(files)).pipe(
        Effect.provide(Layer.merge(Layer.provide(SyncFileSystem.overlay, NodeFileSystem.layer), NodePath.layer))
      )
    )
    const seconds = (performance.now() - started) / 1000
    const passed = entries.filter((entry) => Result.isSuccess(entry) && entry.success.passed).length
    check(entries.length === count && passed === count, `all ${count} scenarios pass (${passed} did)`)
    return [
      {
        id: "4",
        label: `\`harness test\`: ${count.toLocaleString("en-US")} generated conversation scenarios in one run (${Math.round((seconds * 1e6) / count)} µs each)`,
        value: `${seconds.toFixed(2)} s`,
        target: "< 10 s",
        met: seconds < 10
      }
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
