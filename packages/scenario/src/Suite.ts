/**
 * Scenario files on disk: finding every `*.json` under some paths, loading and running them.
 * Uses effect's `FileSystem` service, so it runs wherever a platform layer provides one.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Path, Result } from "effect"
import * as Conversation from "./Conversation.ts"
import * as PlanScenario from "./PlanScenario.ts"
import * as ResponseCases from "./ResponseCases.ts"
import * as ScenarioFile from "./ScenarioFile.ts"
import * as Variant from "./Variant.ts"
import type * as Verdict from "./Verdict.ts"

/**
 * A path given on the command line that cannot be read.
 *
 * @since 0.1.0
 */
export const unreadable = (file: string, reason: string): ScenarioFile.InvalidScenario =>
  new ScenarioFile.InvalidScenario({ file, path: "(file)", problem: `cannot be read: ${reason}` })

/**
 * Every `*.json` file under the given files and folders, sorted; a path that does not exist is
 * an error naming it.
 *
 * @since 0.1.0
 */
export const collect = (
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, ScenarioFile.InvalidScenario, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const found: Array<string> = []
    for (const root of paths) {
      const info = yield* Effect.mapError(fs.stat(root), (error) => unreadable(root, error.message))
      if (info.type === "Directory") {
        const entries = yield* Effect.mapError(fs.readDirectory(root, { recursive: true }), (error) =>
          unreadable(root, error.message)
        )
        for (const entry of entries) if (entry.endsWith(".json")) found.push(path.join(root, entry))
      } else {
        found.push(root)
      }
    }
    return [...new Set(found)].sort()
  })

/**
 * Reads and decodes one scenario file.
 *
 * @since 0.1.0
 */
export const load = (
  file: string
): Effect.Effect<ScenarioFile.Scenario, ScenarioFile.InvalidScenario, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.mapError(fs.readFileString(file), (error) => unreadable(file, error.message))
    const parsed = ScenarioFile.parse(file, text)
    return Result.isSuccess(parsed) ? parsed.success : yield* parsed.failure
  })

/**
 * Runs a decoded scenario under a harness variant (default `fixed`).
 *
 * @since 0.1.0
 */
export const run = (
  scenario: ScenarioFile.Scenario,
  file: string,
  variant: Variant.Variant = Variant.defaultVariant
): Effect.Effect<Verdict.Verdict> => {
  switch (scenario.kind) {
    case "conversation":
      return Conversation.run(scenario, file, { variant })
    case "plan":
      return PlanScenario.run(scenario, file, { variant })
    case "response-cases":
      return ResponseCases.run(scenario, file, { variant })
  }
}

/**
 * What `harness test` found in one file: a verdict, or the reason the file is invalid.
 *
 * @since 0.1.0
 */
export type Entry = Result.Result<Verdict.Verdict, ScenarioFile.InvalidScenario>

/**
 * Loads every file first, then runs the valid ones under a variant (default `fixed`); an
 * invalid file runs nothing.
 *
 * @since 0.1.0
 */
export const runAll = (
  files: ReadonlyArray<string>,
  variant: Variant.Variant = Variant.defaultVariant
): Effect.Effect<ReadonlyArray<Entry>, never, FileSystem.FileSystem> =>
  Effect.forEach(files, (file) =>
    load(file).pipe(
      Effect.flatMap((scenario) => run(scenario, file, variant)),
      Effect.result
    )
  )
