import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { Journal, TrialRecord } from "../src/index.ts"
import { memoryFiles } from "./fixtures/memoryFiles.ts"

const header: Journal.Header = { model: "fake:model", trials: 3, variants: ["before", "fixed"] }

const record = (index: number, passed = true): TrialRecord.TrialRecord => ({
  file: "cases/a.json",
  digest: "abc",
  variant: "fixed",
  index,
  passed,
  stop: passed ? "end" : null,
  failures: passed ? [] : [{ kind: "check", message: "pass[0]: expected done" }],
  usage: { inputTokens: 10, outputTokens: 2 },
  durationMs: 5,
  trace: `traces/a.fixed.${index}.jsonl`
})

const setup = () => {
  const fs = memoryFiles()
  return { files: fs.files, layer: Layer.merge(fs.layer, fs.path) }
}

describe("Journal", () => {
  it.effect("a new journal: the header, then a line per trial appended at once; read back whole", () => {
    const { files, layer } = setup()
    return Effect.gen(function* () {
      const journal = yield* Journal.open("/dir", header)
      assert.strictEqual(journal.file, "/dir/journal.jsonl")
      assert.strictEqual(journal.done.size, 0)
      assert.deepStrictEqual(JSON.parse(files.get("/dir/journal.jsonl")?.split("\n")[0] ?? ""), {
        type: "trials.journal",
        format: 1,
        model: "fake:model",
        trials: 3,
        variants: ["before", "fixed"],
        run: journal.run
      })
      assert.match(journal.run, /^[0-9a-f-]{36}$/)
      yield* journal.append(record(0))
      assert.strictEqual(files.get("/dir/journal.jsonl")?.split("\n").length, 3)
      yield* journal.append(record(1, false))
      const again = yield* Journal.open("/dir", header)
      // A resumed journal keeps its run id.
      assert.strictEqual(again.run, journal.run)
      assert.deepStrictEqual([...Journal.done(again).values()], [record(0), record(1, false)])
      assert.deepStrictEqual(
        Journal.done(again).get(TrialRecord.key("cases/a.json", "abc", "fixed", 1)),
        record(1, false)
      )
      const read = yield* Journal.read("/dir/journal.jsonl")
      assert.deepStrictEqual(read.header, { ...header, run: journal.run })
      assert.strictEqual(read.records.length, 2)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a last line cut short (kill -9 mid-write) is dropped, and cut off so the next line starts clean", () => {
    const { files, layer } = setup()
    return Effect.gen(function* () {
      const journal = yield* Journal.open("/dir", header)
      yield* journal.append(record(0))
      yield* journal.append(record(1))
      const whole = files.get("/dir/journal.jsonl") ?? ""
      files.set("/dir/journal.jsonl", `${whole}${Journal.trialLine(record(2)).slice(0, 40)}`)
      const resumed = yield* Journal.open("/dir", header)
      assert.deepStrictEqual([...resumed.done.keys()].length, 2)
      assert.strictEqual(files.get("/dir/journal.jsonl"), whole)
      yield* resumed.append(record(2))
      const read = yield* Journal.read("/dir/journal.jsonl")
      assert.deepStrictEqual(
        read.records.map((r) => r.index),
        [0, 1, 2]
      )
      // A header cut short: the journal starts anew.
      files.set("/dir/journal.jsonl", '{"type":"trials.jour')
      const fresh = yield* Journal.open("/dir", header)
      assert.strictEqual(fresh.done.size, 0)
      assert.strictEqual(files.get("/dir/journal.jsonl"), `${Journal.headerLine({ ...header, run: fresh.run })}\n`)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a journal of another run is refused, naming the file and what differs, unless fresh", () => {
    const { files, layer } = setup()
    return Effect.gen(function* () {
      const journal = yield* Journal.open("/dir", header)
      yield* journal.append(record(0))
      const other = yield* Effect.result(Journal.open("/dir", { ...header, model: "other:model", trials: 5 }))
      assert.isTrue(Result.isFailure(other))
      if (Result.isFailure(other)) {
        const error = other.failure
        assert.strictEqual(error._tag, "JournalMismatch")
        if (error._tag === "JournalMismatch") {
          assert.strictEqual(error.file, "/dir/journal.jsonl")
          assert.include(error.differs, 'model: journal "fake:model", this run "other:model"')
          assert.include(error.differs, "trials: journal 3, this run 5")
          assert.include(error.message, "/dir/journal.jsonl is the journal of another run")
        }
      }
      const variants = yield* Effect.flip(Journal.open("/dir", { ...header, variants: ["fixed"] }))
      assert.include(variants.message, 'variants: journal ["before","fixed"], this run ["fixed"]')
      // Nothing was overwritten by the refusals.
      assert.strictEqual((yield* Journal.open("/dir", header)).done.size, 1)
      const before = (yield* Journal.open("/dir", header)).run
      const fresh = yield* Journal.open("/dir", { ...header, trials: 5 }, { fresh: true })
      assert.strictEqual(fresh.done.size, 0)
      // Starting fresh is a new run: a new id.
      assert.notStrictEqual(fresh.run, before)
      assert.strictEqual(
        files.get("/dir/journal.jsonl"),
        `${Journal.headerLine({ ...header, trials: 5, run: fresh.run })}\n`
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("a bad line that is not the last is refused with its line number", () => {
    const { files, layer } = setup()
    return Effect.gen(function* () {
      const good = Journal.trialLine(record(0))
      const cases: ReadonlyArray<readonly [string, number, string]> = [
        [`${Journal.headerLine(header)}\n${good}\nnot json\n${good}\n`, 3, "not JSON"],
        [`${Journal.headerLine(header)}\n{"type":"trial","index":-1}\n${good}\n`, 2, "not a trial line"],
        [`{"type":"other"}\n${good}\n`, 1, "not a journal header"],
        // A complete last line (ends with a newline) that is bad is no torn write: refused.
        [`${Journal.headerLine(header)}\n${good}\n[1,2]\n`, 3, "not a trial line"]
      ]
      for (const [text, line, problem] of cases) {
        files.set("/dir/journal.jsonl", text)
        const error = yield* Effect.flip(Journal.open("/dir", header))
        assert.strictEqual(error._tag, "MalformedJournal", text)
        if (error._tag === "MalformedJournal") {
          assert.strictEqual(error.line, line, text)
          assert.include(error.problem, problem)
          assert.match(error.message, new RegExp(`^/dir/journal\\.jsonl:${line}: `))
        }
        const read = yield* Effect.flip(Journal.read("/dir/journal.jsonl"))
        assert.strictEqual(read._tag, "MalformedJournal")
      }
    }).pipe(Effect.provide(layer))
  })

  it.effect('a journal written before run ids resumes as run ""; where a trial ran (runner) is kept', () => {
    const { files, layer } = setup()
    return Effect.gen(function* () {
      const old = `${JSON.stringify({ type: "trials.journal", format: 1, ...header })}\n`
      const remote: TrialRecord.TrialRecord = { ...record(0), runner: "127.0.0.1:34431" }
      files.set("/dir/journal.jsonl", `${old}${Journal.trialLine(remote)}\n`)
      const journal = yield* Journal.open("/dir", header)
      assert.strictEqual(journal.run, "")
      assert.deepStrictEqual([...journal.done.values()], [remote])
      // Its header is left as it was.
      assert.isTrue(files.get("/dir/journal.jsonl")?.startsWith(old))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a trial's cost: kept when priced, absent otherwise; a journal written before costs still reads", () => {
    const { files, layer } = setup()
    return Effect.gen(function* () {
      const priced: TrialRecord.TrialRecord = { ...record(1), cost: 0.0081 }
      // A record without a cost writes no `cost` key (an unpriced trial is never $0).
      assert.notInclude(Journal.trialLine(record(0)), "cost")
      assert.include(Journal.trialLine(priced), '"cost":0.0081')
      assert.deepStrictEqual(Journal.readTrialLine(Journal.trialLine(priced)), Result.succeed(priced))
      // The lines as a version before costs wrote them: no `cost` key anywhere.
      const old = [
        JSON.stringify({ type: "trials.journal", format: 1, ...header, run: "r-1" }),
        JSON.stringify({ type: "trial", ...record(0) })
      ]
      files.set("/dir/journal.jsonl", `${old.join("\n")}\n${Journal.trialLine(priced)}\n`)
      const resumed = yield* Journal.open("/dir", header)
      assert.strictEqual(resumed.run, "r-1")
      assert.deepStrictEqual([...resumed.done.values()], [record(0), priced])
      assert.isUndefined(resumed.done.get(TrialRecord.key("cases/a.json", "abc", "fixed", 0))?.cost)
      // A cost that is not a finite amount of at least 0 does not read, naming the field.
      for (const bad of [-1, "0.1", null]) {
        const line = JSON.stringify({ type: "trial", ...record(2), cost: bad })
        const read = Journal.readTrialLine(line)
        assert.isTrue(Result.isFailure(read), String(bad))
        if (Result.isFailure(read)) assert.include(read.failure, "cost")
      }
    }).pipe(Effect.provide(layer))
  })
})
