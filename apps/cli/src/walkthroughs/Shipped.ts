/**
 * A walkthrough's shipped scenario file, loaded as the kind it must be: exit 2 naming the file
 * when it does not decode or is another kind.
 *
 * @since 0.1.0
 */
import { type ScenarioFile, Suite } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem } from "effect"
import * as ExitCode from "../common/ExitCode.ts"

/**
 * The shipped file as a scenario of `kind`; a file that does not decode is told on stderr by
 * `describe` (its message, unless told), then exit 2.
 *
 * @since 0.1.0
 */
export const load = <K extends ScenarioFile.Scenario["kind"]>(
  file: string,
  kind: K,
  describe: (error: ScenarioFile.InvalidScenario) => string = (error) => error.message
): Effect.Effect<Extract<ScenarioFile.Scenario, { readonly kind: K }>, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const scenario = yield* Effect.catch(Suite.load(file), (error) =>
      Effect.andThen(Console.error(describe(error)), Effect.fail(ExitCode.invalid))
    )
    const isKind = (s: ScenarioFile.Scenario): s is Extract<ScenarioFile.Scenario, { readonly kind: K }> =>
      s.kind === kind
    if (!isKind(scenario)) {
      yield* Console.error(`${file}: kind: expected "${kind}", got "${scenario.kind}"`)
      return yield* ExitCode.invalid
    }
    return scenario
  })
