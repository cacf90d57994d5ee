/**
 * `harness capture` of a run that had commands (`harness agent --commands`, a scenario with
 * `commands`): commands replay only over a real folder, so the scenario names a root folder next
 * to `--out` (`<name>.root` for `<name>.json`) holding the run's first files, as the trace
 * recorded them. It is proved first over a temporary twin (the folder written there, the
 * scenario replayed as a file beside it, with the sandbox), then the folder is written next to
 * `--out`; an existing one is never overwritten. A run without commands is captured as before
 * (`Capture.checked`, inline files).
 *
 * @since 0.2.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Capture, ScenarioFile } from "@agent-harness/scenario"
import { Effect, Result } from "effect"

/** The root folder's name for a scenario written to `out`: `count.json` → `count.root`. */
export const rootName = (out: string): string => `${path.basename(out).replace(/\.json$/i, "")}.root`

/**
 * Where a recorded path lands in `folder`, or why it cannot be written there: a trace is input,
 * and its paths may be hostile (absolute, `..`, a NUL, an empty segment).
 */
const placeOf = (folder: string, file: string): Result.Result<string, string> => {
  const parts = file.split("/")
  if (file.includes("\u0000")) return Result.fail(`${JSON.stringify(file)} holds a NUL character`)
  if (file.startsWith("/") || parts.some((part) => part === "" || part === "." || part === "..")) {
    return Result.fail(`${JSON.stringify(file)} is not a path inside the root folder`)
  }
  return Result.succeed(path.join(folder, ...parts))
}

/** Writes the files into the new folder `folder` (which must not exist), or says which could not be. */
const writeTree = (folder: string, files: Readonly<Record<string, string>>): Result.Result<void, string> => {
  try {
    fs.mkdirSync(folder)
    for (const [file, content] of Object.entries(files)) {
      const place = placeOf(folder, file)
      if (Result.isFailure(place)) return Result.fail(place.failure)
      fs.mkdirSync(path.dirname(place.success), { recursive: true })
      fs.writeFileSync(place.success, content, { flag: "wx" })
    }
    return Result.void
  } catch (error) {
    return Result.fail(error instanceof Error ? error.message : String(error))
  }
}

const invalid = (trace: string, path: string, problem: string): ScenarioFile.InvalidScenario =>
  new ScenarioFile.InvalidScenario({ file: trace, path, problem })

/**
 * The scenario a trace gives, proved to replay: `Capture.checked` for a run without commands;
 * for one with commands, the scenario over `<out>.root`, that folder written next to `out` with
 * the run's first files once the scenario replayed over a temporary twin. Without `out` such a
 * run is refused (the folder has nowhere to go), as is an `out` whose root folder exists.
 *
 * @since 0.2.0
 */
export const checked = (
  trace: string,
  text: string,
  out: string | undefined
): Effect.Effect<Capture.Captured, ScenarioFile.InvalidScenario> =>
  Effect.gen(function* () {
    const name = out === undefined ? "captured.root" : rootName(out)
    const rooted = Capture.rooted(trace, text, name)
    if (Result.isFailure(rooted) || rooted.success.scenario.commands === undefined) {
      return yield* Capture.checked(trace, text)
    }
    if (out === undefined) {
      return yield* invalid(
        trace,
        "(trace)",
        "the run had commands, which replay only over a real folder: give --out FILE, and the run's first files are written next to it as the scenario's root folder (FILE's name, .root)"
      )
    }
    const target = path.join(path.dirname(out), name)
    if (fs.existsSync(target)) {
      return yield* invalid(
        trace,
        "(out)",
        `${target} exists: the scenario's root folder goes there, and capture never overwrites: remove it or choose another --out`
      )
    }
    const files = rooted.success.files
    const twin = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "harness-capture-"))),
      (folder) => Effect.sync(() => fs.rmSync(folder, { recursive: true, force: true }))
    )
    const wrote = writeTree(path.join(twin, name), files)
    if (Result.isFailure(wrote)) return yield* invalid(trace, "(trace)", `the run's files: ${wrote.failure}`)
    const proved = yield* Capture.checkedRooted(trace, text, {
      root: name,
      scenario: path.join(twin, path.basename(out))
    })
    const kept = writeTree(target, files)
    if (Result.isFailure(kept)) {
      fs.rmSync(target, { recursive: true, force: true })
      return yield* invalid(trace, "(out)", `${target}: ${kept.failure}`)
    }
    return proved.scenario
  }).pipe(Effect.scoped)
