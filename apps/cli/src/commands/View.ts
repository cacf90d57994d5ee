/**
 * `harness view FILE… [--out report.html] [--port N]`: conversation traces, plan session traces
 * and `harness test --json` reports as one self-contained page (the viewer's `Html`), written to
 * `--out`, or served on 127.0.0.1 (its URL printed on stdout) until SIGINT or SIGTERM, exit 0.
 *
 * Every input is read as `harness run` reads a scenario (`InputFile`: a regular file, at most
 * 64 MiB, UTF-8); one that cannot be read exits 2 naming it, before anything is written or
 * served. A file that reads but is not a good trace (a line that is not JSON, an event that does
 * not match, another kind of file) is drawn with each problem named on the page, by line and
 * JSON path: exit 0. `--out` may not be one of the inputs, nor a folder. A trials report
 * (`DIR/report.jsonl`) brings the traces of its failing trials (`DIR/traces/…`) onto the page.
 *
 * Loaded only when the command runs: `harness run` never loads the viewer.
 *
 * @since 0.1.0
 */
import { InputFile, Report, type ScenarioFile } from "@agent-harness/scenario"
import { Html, Input, type Model, Server } from "@agent-harness/viewer"
import { Console, Effect, FileSystem, Result } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Outputs from "../printing/Outputs.ts"
import * as Signal from "../common/Signal.ts"
import * as Style from "../printing/Style.ts"

/**
 * The options of `view`.
 *
 * @since 0.1.0
 */
export interface Options {
  /** Conversation traces, plan session traces and test reports. */
  readonly files: ReadonlyArray<string>
  /** Write the page here instead of serving it. */
  readonly out?: string | undefined
  /** The port to serve on; default any free port. */
  readonly port?: number | undefined
}

/**
 * What a page holds, in words: `1 conversation trace, 1 plan session; 2 problems named on the page`.
 *
 * @since 0.1.0
 */
export const summary = (page: Model.Page): string => {
  const words: { readonly [K in Model.File["kind"]]: readonly [string, string] } = {
    conversation: ["conversation trace", "conversation traces"],
    plan: ["plan session", "plan sessions"],
    report: ["test report", "test reports"],
    trials: ["trials report", "trials reports"],
    unknown: ["file it cannot read", "files it cannot read"]
  }
  const counts = new Map<Model.File["kind"], number>()
  for (const file of page.files) counts.set(file.kind, (counts.get(file.kind) ?? 0) + 1)
  const kinds = [...counts].map(([kind, n]) => `${n} ${words[kind][n === 1 ? 0 : 1]}`)
  const problems = page.files.reduce((sum, file) => sum + file.problems.length, 0)
  const named = problems === 0 ? "" : `; ${problems} problem${problems === 1 ? "" : "s"} named on the page`
  return `${kinds.join(", ")}${named}`
}

/** Exit 2 with a line naming the flag and what is wrong with it. */
const usage = (message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(message), Effect.fail(ExitCode.invalid))

/**
 * Draws the files as one page: written to `out`, or served until a signal.
 *
 * @since 0.1.0
 */
export const view = (options: Options): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const { files, out, port } = options
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
      return yield* usage(`--port ${port}: a port is a whole number from 0 (any free port) to 65535`)
    }
    if (out !== undefined) {
      for (const file of files) yield* Outputs.refuseOverwrite("--out", out, { path: file, what: "an input" })
    }
    const read = yield* Effect.forEach(files, (file) =>
      Effect.map(Effect.result(InputFile.read(file)), (text) => ({ file, text }))
    )
    const unreadable: Array<ScenarioFile.InvalidScenario> = []
    const inputs: Array<Input.Input> = []
    for (const { file, text } of read) {
      if (Result.isFailure(text)) unreadable.push(text.failure)
      else inputs.push({ name: file, text: text.success })
    }
    if (unreadable.length > 0) {
      const style = Style.current()
      for (const error of unreadable) yield* Console.error(Report.invalid(error, style))
      return yield* ExitCode.invalid
    }
    // A trials report's bars open its failing trials' traces: read them too (one that cannot be
    // read is left out, and its bar names its path instead).
    const traces = yield* Effect.forEach(Input.linked(inputs), (file) =>
      Effect.map(Effect.result(InputFile.read(file)), (text) => ({ file, text }))
    )
    for (const { file, text } of traces) if (Result.isSuccess(text)) inputs.push({ name: file, text: text.success })
    const page = Input.page(inputs)
    const html = Html.fromPage(page)
    if (out !== undefined) {
      const fs = yield* FileSystem.FileSystem
      yield* Effect.catch(fs.writeFileString(out, html), (error) => usage(`--out ${out}: ${error.message}`))
      return yield* Console.error(`wrote ${out}: ${summary(page)}`)
    }
    yield* Effect.scoped(
      Effect.gen(function* () {
        const served = yield* Effect.catch(Server.serve(html, { port }), (error) =>
          usage(port === undefined ? `cannot serve the page: ${error.message}` : `--port ${port}: ${error.message}`)
        )
        yield* Console.log(served.url)
        yield* Console.error(`serving ${summary(page)} on ${served.url} (Ctrl-C to stop)`)
        yield* Signal.untilSignal
      })
    )
  })
