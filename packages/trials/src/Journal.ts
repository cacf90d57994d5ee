/**
 * The journal of a trials run (`DIR/journal.jsonl`): a header line naming the model, the trials
 * per case and the variants, then one line per finished trial, appended as soon as it ends. A
 * run started again on the same folder reads it back and does not run again the trials it holds
 * (same case bytes, variant and index). A last line cut short (the process killed mid-write) is
 * dropped; any other bad line, or a header of another run, is refused with a typed error.
 *
 * @since 0.1.0
 */
import {
  type Cause,
  Data,
  Effect,
  FileSystem,
  Path,
  type PlatformError,
  type Result,
  type Scope,
  Semaphore
} from "effect"
import * as Line from "./internal/journalLine.ts"
import * as TrialRecord from "./TrialRecord.ts"

/**
 * What a journal is of: the model (`PROVIDER:MODEL`), the trials per case and the variants' names.
 *
 * @since 0.1.0
 */
export interface Header {
  /** The model the trials ran against, as `--model` names it (`PROVIDER:MODEL`). */
  readonly model: string
  /** How many trials per case and variant. */
  readonly trials: number
  /** The variants' names, in order. */
  readonly variants: ReadonlyArray<string>
  /**
   * The run's id: made when the journal is created (`--fresh` makes a new one), kept while it is
   * resumed, so that what a run started elsewhere (trials on the durable engine's runners) is
   * found again by a resumed run. Absent in journals written before run ids: their run is `""`.
   */
  readonly run?: string | undefined
}

const JournalMismatchBase: new (args: {
  readonly file: string
  readonly differs: string
}) => Cause.YieldableError & {
  readonly _tag: "JournalMismatch"
  /** The journal file. */
  readonly file: string
  /** What differs, in words (`model: journal "a:b", this run "c:d"`). */
  readonly differs: string
} = Data.TaggedError("JournalMismatch")

/**
 * A journal of another run (another model, trial count or variants): refused unless the run is
 * told to start fresh.
 *
 * @since 0.1.0
 */
export class JournalMismatch extends JournalMismatchBase {
  /** `<file> is the journal of another run: <differs> (start fresh to replace it)`. */
  override get message(): string {
    return `${this.file} is the journal of another run: ${this.differs} (start fresh to replace it)`
  }
}

const MalformedJournalBase: new (args: {
  readonly file: string
  readonly line: number
  readonly problem: string
}) => Cause.YieldableError & {
  readonly _tag: "MalformedJournal"
  /** The journal file. */
  readonly file: string
  /** The bad line's number, from 1. */
  readonly line: number
  /** What is wrong with it. */
  readonly problem: string
} = Data.TaggedError("MalformedJournal")

/**
 * A journal with a bad line that is not its last (a last line cut short is dropped, not refused).
 *
 * @since 0.1.0
 */
export class MalformedJournal extends MalformedJournalBase {
  /** `<file>:<line>: <problem>`. */
  override get message(): string {
    return `${this.file}:${this.line}: ${this.problem}`
  }
}

/**
 * An open journal: its file, its header, the trials it already held when opened, and `append`,
 * which writes one finished trial's line at once (appends are one at a time).
 *
 * @since 0.1.0
 */
export interface Journal {
  /** The journal file (`DIR/journal.jsonl`). */
  readonly file: string
  /** What it is of. */
  readonly header: Header
  /** The run's id: the journal's `run`, `""` for a journal written before run ids. */
  readonly run: string
  /** The trials it held when opened, by `TrialRecord.key`. */
  readonly done: ReadonlyMap<string, TrialRecord.TrialRecord>
  /** Appends one finished trial's line. */
  readonly append: (record: TrialRecord.TrialRecord) => Effect.Effect<void, PlatformError.PlatformError>
}

/**
 * The journal's file name in a report folder.
 *
 * @since 0.1.0
 */
export const fileName = "journal.jsonl"

/**
 * The header line's JSON text.
 *
 * @since 0.1.0
 */
export const headerLine = (header: Header): string =>
  JSON.stringify({
    type: "trials.journal",
    format: 1,
    model: header.model,
    trials: header.trials,
    variants: header.variants,
    ...(header.run === undefined ? {} : { run: header.run })
  })

/**
 * A finished trial's line's JSON text.
 *
 * @since 0.1.0
 */
export const trialLine = (record: TrialRecord.TrialRecord): string =>
  JSON.stringify({
    type: "trial",
    file: record.file,
    digest: record.digest,
    variant: record.variant,
    index: record.index,
    passed: record.passed,
    stop: record.stop,
    failures: record.failures.map((f) => ({ kind: f.kind, message: f.message })),
    usage: record.usage,
    ...(record.cost === undefined ? {} : { cost: record.cost }),
    durationMs: record.durationMs,
    ...(record.trace === undefined ? {} : { trace: record.trace }),
    ...(record.scenario === undefined ? {} : { scenario: record.scenario }),
    ...(record.captureError === undefined ? {} : { captureError: record.captureError }),
    ...(record.runner === undefined ? {} : { runner: record.runner })
  })

/**
 * A finished trial's line read back (what `trialLine` writes), or what is wrong with it.
 *
 * @since 0.1.0
 */
export const readTrialLine = (text: string): Result.Result<TrialRecord.TrialRecord, string> => Line.trial(text)

/**
 * What differs between a journal's header and this run's, in words; `undefined` when nothing does.
 *
 * @since 0.1.0
 */
export const differs = (journal: Header, run: Header): string | undefined => {
  const found: Array<string> = []
  if (journal.model !== run.model)
    found.push(`model: journal ${JSON.stringify(journal.model)}, this run ${JSON.stringify(run.model)}`)
  if (journal.trials !== run.trials) found.push(`trials: journal ${journal.trials}, this run ${run.trials}`)
  if (journal.variants.join("\u0000") !== run.variants.join("\u0000")) {
    found.push(`variants: journal ${JSON.stringify(journal.variants)}, this run ${JSON.stringify(run.variants)}`)
  }
  return found.length === 0 ? undefined : found.join("; ")
}

/**
 * Reads a journal file: its header (absent when the file is empty or holds only a line cut short)
 * and its trials. Fails with `MalformedJournal` naming the line when a line that is not the last
 * does not read.
 *
 * @since 0.1.0
 */
export const read = (
  file: string
): Effect.Effect<
  { readonly header: Header | undefined; readonly records: ReadonlyArray<TrialRecord.TrialRecord> },
  MalformedJournal | PlatformError.PlatformError,
  FileSystem.FileSystem
> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const read = Line.read(yield* fs.readFileString(file))
    if (read._tag === "Malformed") {
      return yield* new MalformedJournal({ file, line: read.line, problem: read.problem })
    }
    return { header: read.header, records: read.records }
  })

/**
 * Opens the journal of a report folder (`DIR/journal.jsonl`, the folder made when missing) for a
 * run: a new journal gets the header; an existing one is read back (a last line cut short is cut
 * off the file, so the next line starts clean) and must have the same header, otherwise it fails
 * with `JournalMismatch` unless `fresh`. A bad line that is not the last fails with
 * `MalformedJournal`. With `fresh` the file is replaced by a new journal without being read.
 * A new journal's header gets a new run id (`Header.run`, a UUID); a resumed one keeps its own
 * (the `header` given needs none: it is not compared).
 * The file is then opened once for appending and closed when the scope closes; each `append` is
 * one write of its own (no buffering), so a trial journaled is on disk before the next starts.
 *
 * @since 0.1.0
 */
export const open = (
  folder: string,
  header: Header,
  options?: { readonly fresh?: boolean | undefined }
): Effect.Effect<
  Journal,
  JournalMismatch | MalformedJournal | PlatformError.PlatformError,
  FileSystem.FileSystem | Path.Path | Scope.Scope
> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(folder, fileName)
    yield* fs.makeDirectory(folder, { recursive: true })
    const done = new Map<string, TrialRecord.TrialRecord>()
    const exists = options?.fresh === true ? false : yield* fs.exists(file)
    let start = true
    let endLine = false
    let run = ""
    if (exists) {
      const text = yield* fs.readFileString(file)
      const read = Line.read(text)
      if (read._tag === "Malformed") {
        return yield* new MalformedJournal({ file, line: read.line, problem: read.problem })
      }
      if (read.header !== undefined) {
        const difference = differs(read.header, header)
        if (difference !== undefined) return yield* new JournalMismatch({ file, differs: difference })
        start = false
        run = read.header.run ?? ""
        for (const record of read.records)
          done.set(TrialRecord.key(record.file, record.digest, record.variant, record.index), record)
        // Cut a torn last line off before the file is opened for appending.
        if (read.kept < text.length) {
          const keptText = text.slice(0, read.kept)
          yield* fs.truncate(file, new TextEncoder().encode(keptText).length)
          endLine = !keptText.endsWith("\n")
        } else {
          endLine = !text.endsWith("\n")
        }
      }
    }
    if (start) {
      run = globalThis.crypto.randomUUID()
      yield* fs.writeFileString(file, `${headerLine({ ...header, run })}\n`)
    }
    const handle = yield* fs.open(file, { flag: "a" })
    const encoder = new TextEncoder()
    if (endLine) yield* handle.writeAll(encoder.encode("\n"))
    const one = yield* Semaphore.make(1)
    return {
      file,
      header: { ...header, run },
      run,
      done,
      append: (record) =>
        Semaphore.withPermit(
          one,
          Effect.suspend(() => handle.writeAll(encoder.encode(`${trialLine(record)}\n`)))
        )
    }
  })

/**
 * The trials a journal held when opened, by `TrialRecord.key(file, digest, variant, index)`.
 *
 * @since 0.1.0
 */
export const done = (journal: Journal): ReadonlyMap<string, TrialRecord.TrialRecord> => journal.done
