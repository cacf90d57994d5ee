/**
 * Scenario files on disk: finding every `*.json` under some paths, loading and running them.
 * Uses effect's `FileSystem` service, so it runs wherever a platform layer provides one.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Option, Path, Result, Stream } from "effect"
import * as Commands from "./Commands.ts"
import * as Conversation from "./Conversation.ts"
import * as InputFile from "./InputFile.ts"
import * as LiveCase from "./LiveCase.ts"
import * as Mounter from "./Mounter.ts"
import * as Permissions from "./Permissions.ts"
import * as PlanScenario from "./PlanScenario.ts"
import * as ResponseCases from "./ResponseCases.ts"
import * as Roots from "./Roots.ts"
import * as ScenarioFile from "./ScenarioFile.ts"
import * as Variant from "./Variant.ts"
import type * as Verdict from "./Verdict.ts"

/**
 * A path given on the command line that cannot be read: an `InvalidScenario` at `(file)` saying
 * why (`InputFile.unreadable`).
 *
 * @since 0.1.0
 */
export const unreadable: (file: string, reason: string) => ScenarioFile.InvalidScenario = InputFile.unreadable

/**
 * Something under a folder that `harness test` does not run, and why: a `*.json` entry that is
 * not a regular file (a FIFO, a device, a socket, a broken link), a link to a folder (links to
 * folders are not followed: one pointing up the tree would walk it again and again), or a folder
 * reached twice (a bind mount looping back).
 *
 * @since 0.1.0
 */
export interface Skipped {
  /** The entry's path. */
  readonly file: string
  /** Why it was skipped (`a broken link`, `a FIFO (named pipe), not a regular file`...). */
  readonly reason: string
}

/**
 * What `find` found: the scenario files to load, sorted and without repeats, and what it skipped.
 *
 * @since 0.1.0
 */
export interface Found {
  /** The scenario files, sorted, each once. */
  readonly files: ReadonlyArray<string>
  /** What was skipped under the folders, sorted by path. */
  readonly skipped: ReadonlyArray<Skipped>
}

/**
 * Every `*.json` regular file under the given files and folders. A path given directly is kept
 * whatever it is (loading refuses what is not a regular file); a path that does not exist is an
 * error naming it. Under a folder, links to files are followed, links to folders are not, and
 * every `*.json` entry that is not a regular file is skipped with its reason, as is any folder
 * reached a second time.
 *
 * @since 0.1.0
 */
export const find = (
  paths: ReadonlyArray<string>
): Effect.Effect<Found, ScenarioFile.InvalidScenario, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const files: Array<string> = []
    const skipped: Array<Skipped> = []
    const stat = (file: string) => Effect.mapError(fs.stat(file), (error) => unreadable(file, error.message))
    for (const root of paths) {
      const info = yield* stat(root)
      if (info.type !== "Directory") {
        files.push(root)
        continue
      }
      const walked = new Set<string>()
      const pending: Array<readonly [string, FileSystem.File.Info]> = [[root, info]]
      for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        const [dir, dirInfo] = next
        const id = `${dirInfo.dev}:${Option.getOrElse(dirInfo.ino, () => dir)}`
        if (walked.has(id)) {
          skipped.push({ file: dir, reason: "a folder already walked (the tree loops back on itself)" })
          continue
        }
        walked.add(id)
        const entries = yield* Effect.mapError(fs.readDirectoryEntries(dir), (error) => unreadable(dir, error.message))
        for (const entry of entries) {
          const file = path.join(dir, entry.name)
          const json = entry.name.endsWith(".json")
          const type =
            entry.type === "Unknown"
              ? (yield* Effect.mapError(fs.lstat(file), (error) => unreadable(file, error.message))).type
              : entry.type
          if (type === "Directory") {
            pending.push([file, yield* stat(file)])
          } else if (type === "SymbolicLink") {
            const target = yield* Effect.result(fs.stat(file))
            if (Result.isFailure(target)) {
              if (json) skipped.push({ file, reason: "a broken link" })
            } else if (target.success.type === "Directory") {
              skipped.push({ file, reason: "a link to a folder (not followed)" })
            } else if (json) {
              const refused = InputFile.notRegular(target.success.type)
              if (refused === undefined) files.push(file)
              else
                skipped.push({
                  file,
                  reason: `a link to ${InputFile.typeText(target.success.type)}, not a regular file`
                })
            }
          } else if (json) {
            const refused = InputFile.notRegular(type)
            if (refused === undefined) files.push(file)
            else skipped.push({ file, reason: `${InputFile.typeText(type)}, not a regular file` })
          }
        }
      }
    }
    const byFile = (a: Skipped, b: Skipped) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)
    return { files: [...new Set(files)].sort(), skipped: skipped.sort(byFile) }
  })

/**
 * Every `*.json` file under the given files and folders, sorted (`find` without what it skipped).
 *
 * @since 0.1.0
 */
export const collect = (
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, ScenarioFile.InvalidScenario, FileSystem.FileSystem | Path.Path> =>
  Effect.map(find(paths), (found) => found.files)

/**
 * Reads and decodes one scenario file (`InputFile.read`, then `ScenarioFile.parse`). A
 * conversation that declares MCP servers is refused (at `mcp`) when no `Mounter.Mounter` is
 * provided: this harness could not run it as written. So is one that declares a permission
 * `policy` when no `Permissions.Permissions` is provided, or whose policy or approvals do not
 * decode (at their JSON path: `policy.rules[0].decision`). One that declares a `root` folder is
 * refused (at `root`) when no `Roots.Roots` is provided, or when the folder cannot be used (it
 * does not exist, is not a folder, is a link, is outside the scenario file's folder). One that
 * declares `commands` is refused (at `commands`) when no `Commands.Commands` is provided, or when
 * it says no sandbox can run them here (why, and the fix). A live case is checked the same way
 * as a conversation.
 *
 * @since 0.1.0
 */
export const load = (
  file: string
): Effect.Effect<ScenarioFile.Scenario, ScenarioFile.InvalidScenario, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const text = yield* InputFile.read(file)
    const parsed = ScenarioFile.parse(file, text)
    if (Result.isFailure(parsed)) return yield* parsed.failure
    const scenario = parsed.success
    const hasEnvironment = scenario.kind === "conversation" || scenario.kind === "live"
    const declared = hasEnvironment ? (scenario.file.mcp?.length ?? 0) : 0
    if (declared > 0 && Option.isNone(yield* Effect.serviceOption(Mounter.Mounter))) {
      return yield* new ScenarioFile.InvalidScenario({ file, path: "mcp", problem: Mounter.missing(declared) })
    }
    const root = hasEnvironment ? scenario.file.root : undefined
    if (root !== undefined) {
      const roots = yield* Effect.serviceOption(Roots.Roots)
      if (Option.isNone(roots)) {
        return yield* new ScenarioFile.InvalidScenario({ file, path: "root", problem: Roots.missing })
      }
      yield* Effect.mapError(
        roots.value.check(root, file),
        (error) => new ScenarioFile.InvalidScenario({ file, path: "root", problem: error.problem })
      )
    }
    const commands = hasEnvironment ? scenario.file.commands : undefined
    if (commands !== undefined) {
      const host = yield* Effect.serviceOption(Commands.Commands)
      if (Option.isNone(host)) {
        return yield* new ScenarioFile.InvalidScenario({ file, path: "commands", problem: Commands.missing })
      }
      yield* Effect.mapError(
        host.value.check(Commands.declared(commands)),
        (error) => new ScenarioFile.InvalidScenario({ file, path: error.at, problem: error.problem })
      )
    }
    if (hasEnvironment && scenario.file.policy !== undefined) {
      const permissions = yield* Effect.serviceOption(Permissions.Permissions)
      if (Option.isNone(permissions)) {
        return yield* new ScenarioFile.InvalidScenario({ file, path: "policy", problem: Permissions.missing })
      }
      const { policy, untrustedOutput } = scenario.file
      const approvals = scenario.kind === "conversation" ? scenario.file.approvals : undefined
      yield* Effect.mapError(
        permissions.value.check({ policy, approvals, untrustedOutput }),
        (error) => new ScenarioFile.InvalidScenario({ file, path: error.at, problem: error.problem })
      )
    }
    return scenario
  })

/**
 * Runs a decoded scenario under a harness variant (default `fixed`). A live case needs a live
 * model, which is not here: its verdict is not run (`notRun`: `needs --model`), counted as
 * skipped (`Report.totals`), never as failed.
 *
 * @example
 * ```ts
 * import { Effect, Result } from "effect"
 * import { Report, ScenarioFile, Suite } from "@agent-harness/scenario"
 *
 * declare const text: string // the file's JSON text
 * const parsed = ScenarioFile.parse("salmorejo.json", text)
 * const program = Result.isFailure(parsed)
 *   ? Effect.succeed(parsed.failure.message) // "salmorejo.json: turns[2].reply[0].id: missing"
 *   : Effect.map(Suite.run(parsed.success, "salmorejo.json"), (verdict) => Report.verdict(verdict))
 * ```
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
    case "live":
      // No live model here: not run, counted as skipped (`LiveCase.trial` runs one).
      return Effect.succeed(LiveCase.withoutModel(scenario, file, variant))
  }
}

/**
 * What `harness test` found in one file: a verdict, or the reason the file is invalid.
 *
 * @since 0.1.0
 */
export type Entry = Result.Result<Verdict.Verdict, ScenarioFile.InvalidScenario>

/**
 * How many files `eachLoaded` (and `runAll`) read ahead of the one running, by default: with a
 * file system whose calls wait (the platform's asynchronous ones), the reads of several files
 * wait together while one runs, which keeps a core busy (on a 2-core machine it took 10,000
 * small scenarios from 4.5 s to 3.4 s). Over synchronous reads (`SyncFileSystem`) it neither
 * helps nor costs measurably.
 *
 * @since 0.1.0
 */
export const readAhead = 4

/**
 * Loads each file (`load`) and hands it to `f` with its place in the list: `f` runs one file at
 * a time, in the files' order, while up to `options.readAhead` (default {@link readAhead}) of the
 * files after it are read and decoded. Loading has no effect beyond reading, so a file read
 * ahead and never run (`f` failed) changed nothing. The results in the files' order.
 *
 * @since 0.1.0
 */
export const eachLoaded = <A, E, R>(
  files: ReadonlyArray<string>,
  f: (
    loaded: Result.Result<ScenarioFile.Scenario, ScenarioFile.InvalidScenario>,
    index: number
  ) => Effect.Effect<A, E, R>,
  options?: { readonly readAhead?: number | undefined }
): Effect.Effect<ReadonlyArray<A>, E, R | FileSystem.FileSystem> => {
  const ahead = Math.max(1, Math.floor(options?.readAhead ?? readAhead))
  if (files.length <= 1 || ahead === 1)
    return Effect.forEach(files, (file, i) => Effect.flatMap(Effect.result(load(file)), (loaded) => f(loaded, i)))
  return Stream.fromIterable(files).pipe(
    Stream.mapEffect((file) => Effect.result(load(file)), { concurrency: ahead }),
    Stream.mapEffect(f),
    Stream.runCollect
  )
}

/**
 * Loads and runs every file under a variant (default `fixed`), in order, reading a few files
 * ahead (`eachLoaded`); an invalid file runs nothing.
 *
 * @since 0.1.0
 */
export const runAll = (
  files: ReadonlyArray<string>,
  variant: Variant.Variant = Variant.defaultVariant
): Effect.Effect<ReadonlyArray<Entry>, never, FileSystem.FileSystem> =>
  eachLoaded(
    files,
    (loaded, i): Effect.Effect<Entry> =>
      Result.isSuccess(loaded)
        ? Effect.map(run(loaded.success, files[i] as string, variant), Result.succeed)
        : Effect.succeed(Result.fail(loaded.failure))
  )

/**
 * An entry as plain data, for a worker to send to the process that reports (structured clone
 * and JSON both keep it): the verdict as it is, or the invalid file's `file`, `path` and
 * `problem` (the error itself is a class, which a message cannot carry).
 *
 * @since 0.1.0
 */
export type WireEntry =
  | { readonly verdict: Verdict.Verdict }
  | { readonly invalid: { readonly file: string; readonly path: string; readonly problem: string } }

/**
 * An entry as plain data (`WireEntry`).
 *
 * @since 0.1.0
 */
export const toWire = (entry: Entry): WireEntry =>
  Result.isSuccess(entry)
    ? { verdict: entry.success }
    : { invalid: { file: entry.failure.file, path: entry.failure.path, problem: entry.failure.problem } }

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const isVerdict = (u: unknown): u is Verdict.Verdict =>
  isObject(u) &&
  typeof u.name === "string" &&
  typeof u.file === "string" &&
  typeof u.kind === "string" &&
  typeof u.variant === "string" &&
  typeof u.passed === "boolean" &&
  typeof u.reserved === "boolean" &&
  isObject(u.outcome) &&
  Array.isArray(u.failures)

/**
 * An entry back from plain data, or `undefined` when the data is not a `WireEntry`.
 *
 * @since 0.1.0
 */
export const fromWire = (u: unknown): Entry | undefined => {
  if (!isObject(u)) return undefined
  if (isVerdict(u.verdict)) return Result.succeed(u.verdict)
  const invalid = u.invalid
  if (
    isObject(invalid) &&
    typeof invalid.file === "string" &&
    typeof invalid.path === "string" &&
    typeof invalid.problem === "string"
  ) {
    return Result.fail(
      new ScenarioFile.InvalidScenario({ file: invalid.file, path: invalid.path, problem: invalid.problem })
    )
  }
  return undefined
}
