/**
 * `harness test --trials N --model P:M` end to end, in this process: the CLI's entry (`Cli.main`)
 * on the platform services `main.ts` gives it, its console captured, against the loopback fake
 * provider speaking Anthropic's wire format. A live case whose trials pass 4 times of 6 (threshold
 * met or not: exit 0 / 1), bad flags (exit 2 naming the flag), `--json` lines with the numbers,
 * a run resumed from its journal (only the missing trials sent), money from `--price` or the
 * shipped table (none for a model it does not know), two variants compared, a 429
 * that holds every trial (one shared backoff), and Ctrl-C (exit 130, resumable).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Prices } from "@agent-harness/budgets"
import { Message } from "@agent-harness/executor"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Console, Effect, Layer } from "effect"
import { ChildProcessSpawner } from "effect/process"
import * as Cli from "../src/Cli.ts"
import * as ScenarioServices from "../src/scenarios/ScenarioServices.ts"
import { apiKey, fakeProviders } from "./fixtures/fakes.ts"
import { type Json, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

/** Each test runs the CLI a few times against a loopback server, on a loaded 2-core machine. */
const SLOW = { timeout: 120_000 }

const temp = tempFolder("trials")
afterAll(() => temp.remove())

const start = fakeProviders()

const services = Layer.mergeAll(
  ScenarioServices.layer,
  NodeStdio.layer,
  NodeTerminal.layer,
  Layer.succeed(
    ChildProcessSpawner.ChildProcessSpawner,
    ChildProcessSpawner.make(() => Effect.die(new Error("no commands in these tests")))
  )
)

interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly lines: ReadonlyArray<string>
}

/** Runs `harness ARGS` in this process with the fakes' key set, capturing what it prints. */
const harness = async (args: ReadonlyArray<string>, during?: () => void): Promise<Ran> => {
  const out: Array<string> = []
  const err: Array<string> = []
  const text = (parts: ReadonlyArray<unknown>) => parts.map(String).join(" ")
  const console: Console.Console = {
    ...globalThis.console,
    log: (...parts: ReadonlyArray<unknown>) => void out.push(text(parts)),
    info: (...parts: ReadonlyArray<unknown>) => void out.push(text(parts)),
    error: (...parts: ReadonlyArray<unknown>) => void err.push(text(parts)),
    warn: (...parts: ReadonlyArray<unknown>) => void err.push(text(parts))
  }
  const saved = { key: process.env.ANTHROPIC_API_KEY, url: process.env.ANTHROPIC_BASE_URL, color: process.env.NO_COLOR }
  process.env.ANTHROPIC_API_KEY = apiKey
  delete process.env.ANTHROPIC_BASE_URL
  process.env.NO_COLOR = "1"
  try {
    const running = Effect.runPromise(
      Cli.main(args).pipe(Effect.provideService(Console.Console, console), Effect.provide(services))
    )
    during?.()
    const code = await running
    return { code, stdout: out.join("\n"), stderr: err.join("\n"), lines: out }
  } finally {
    for (const [name, value] of [
      ["ANTHROPIC_API_KEY", saved.key],
      ["ANTHROPIC_BASE_URL", saved.url],
      ["NO_COLOR", saved.color]
    ] as const) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

/** A live case: the final text must be `done`. */
const liveCase = (extra: Json = {}): Json => ({
  format: 1,
  kind: "live",
  name: "says done",
  user: "Say done.",
  files: { "list.txt": "bread" },
  maxTurns: 2,
  pass: [{ text: "done" }],
  ...extra
})

let folders = 0
/** A fresh folder holding the case (and a report folder path beside it). */
const caseFolder = (extra: Json = {}) => {
  const dir = `case-${++folders}`
  const file = temp.write(`${dir}/cases/done.json`, liveCase(extra))
  return { cases: temp.path(`${dir}/cases`), file, report: temp.path(`${dir}/report`) }
}

/** 4 "done" and 2 "not done" answers, in that interleaving. */
const fourOfSix = () =>
  ["done", "not done", "done", "done", "not done", "done"].map((text) => FakeProvider.reply([Message.text(text)]))

const trialArgs = (fake: FakeProvider.Fake, n: number, rest: ReadonlyArray<string>) => [
  "test",
  "--trials",
  String(n),
  "--model",
  "anthropic:test-model",
  "--base-url",
  `${fake.url}/v1`,
  "--concurrency",
  "1",
  ...rest
]

const jsonLines = (stdout: string): ReadonlyArray<Record<string, unknown>> =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe("harness test --trials", () => {
  it("4 of 6 trials pass: a 60% threshold is met (exit 0), with the failing trials captured", SLOW, async () => {
    const fake = await start({ anthropic: fourOfSix() })
    const where = caseFolder({ threshold: { minPassRate: 0.6 } })
    const r = await harness(trialArgs(fake, 6, ["--report", where.report, where.cases]))
    assert.strictEqual(r.code, 0, `${r.stdout}\n${r.stderr}`)
    assert.strictEqual(fake.requestsTo("anthropic").length, 6)
    const line = r.lines.find((l) => l.startsWith("PASS  says done (fixed)"))
    assert.isDefined(line, r.stdout)
    assert.include(line ?? "", "4/6 passed")
    assert.match(line ?? "", /67% \[30%–90%\] ≥ min 60% · pass\^3 20% · 90 tokens · /)
    // Unpriced (the table does not know anthropic:test-model): no money, and the totals say so.
    assert.notInclude(r.stdout, "$")
    assert.match(
      r.lines.at(-2) ?? "",
      /^trials \(anthropic:test-model, 6 per case and variant\): .* · 90 tokens · no price · /
    )
    assert.include(line ?? "", "\u2265 min 60%")
    assert.include(r.stdout, "trial 1 failed")
    assert.include(r.stdout, "trial 4 failed")
    assert.strictEqual(r.lines.at(-1), "1 passed, 0 failed")
    // The captured scenario replays the failing trial, and fails the same way.
    const captured = join(where.report, "captured", "done.fixed.1.json")
    assert.include(
      r.stdout,
      `trial 1 failed: pass[0]: the final text differs expected: "done" seen: "not done" → ${captured}`
    )
    assert.include(r.stdout, captured)
    const replay = await harness(["run", captured])
    assert.strictEqual(replay.code, 1, replay.stdout)
    assert.include(replay.stdout, "the final text differs")
    const report = readFileSync(join(where.report, "report.jsonl"), "utf8")
    const first = jsonLines(report)[0]
    assert.strictEqual(first?.type, "trials.case")
    assert.strictEqual(first?.passes, 4)
  })

  it("4 of 6 trials pass: an 80% threshold is not met (exit 1)", SLOW, async () => {
    const fake = await start({ anthropic: fourOfSix() })
    const where = caseFolder({ threshold: { minPassRate: 0.8 } })
    const r = await harness(trialArgs(fake, 6, ["--report", where.report, where.cases]))
    assert.strictEqual(r.code, 1, `${r.stdout}\n${r.stderr}`)
    assert.isTrue(
      r.lines.some((l) => l.startsWith("FAIL  says done (fixed)  4/6 passed")),
      r.stdout
    )
    assert.strictEqual(r.lines.at(-1), "0 passed, 1 failed")
  })

  it("--json prints the report's lines with the numbers", SLOW, async () => {
    const fake = await start({ anthropic: fourOfSix() })
    const where = caseFolder({ threshold: { minPassRate: 0.6 } })
    const r = await harness(trialArgs(fake, 6, ["--json", "--report", where.report, where.cases]))
    assert.strictEqual(r.code, 0, r.stderr)
    const lines = jsonLines(r.stdout)
    assert.deepStrictEqual(
      lines.map((l) => l.type),
      ["trials.case", "trials.summary"]
    )
    const [one, summary] = lines
    assert.strictEqual(one?.trials, 6)
    assert.strictEqual(one?.passes, 4)
    assert.strictEqual(one?.met, true)
    const failing = one?.failing as ReadonlyArray<Record<string, unknown>>
    assert.deepStrictEqual(
      failing.map((f) => f.index),
      [1, 4]
    )
    assert.strictEqual(summary?.model, "anthropic:test-model")
    assert.strictEqual(summary?.met, 1)
    // A model the shipped price table does not know, and no --price: no money, never $0.
    assert.notProperty(one, "cost")
    assert.notProperty(summary, "cost")
    assert.strictEqual(r.stdout.trim(), readFileSync(join(where.report, "report.jsonl"), "utf8").trim())
  })

  it(
    "--price: each trial priced from the usage the provider reported; the journal keeps it, a resume reads it",
    SLOW,
    async () => {
      const usage = { input: 1200, output: 300 }
      const replies = () =>
        ["done", "not done", "done", "done", "not done", "done"].map((text) =>
          FakeProvider.reply([Message.text(text)], { usage })
        )
      const fake = await start({ anthropic: replies() })
      const where = caseFolder({ threshold: { minPassRate: 0.6 } })
      // USD per million tokens, so one trial (one model call) costs:
      const perTrial = (usage.input * 3 + usage.output * 15) / 1_000_000
      const r = await harness(
        trialArgs(fake, 6, ["--price", "input=3,output=15", "--all-traces", "--report", where.report, where.cases])
      )
      assert.strictEqual(r.code, 0, `${r.stdout}\n${r.stderr}`)
      const total = `$${(6 * perTrial).toFixed(4)}`
      const line = r.lines.find((l) => l.startsWith("PASS  says done (fixed)")) ?? ""
      assert.include(line, ` · 9.0k tokens · ${total} · `, r.stdout)
      assert.include(r.lines.at(-2) ?? "", ` · 9.0k tokens · ${total} · `, r.stdout)
      // The JSON report carries it per failing trial, per case and for the run.
      const [caseJson, summaryJson] = jsonLines(readFileSync(join(where.report, "report.jsonl"), "utf8"))
      assert.closeTo(caseJson?.cost as number, 6 * perTrial, 1e-12)
      assert.strictEqual(caseJson?.costed, 6)
      assert.deepStrictEqual(
        ((caseJson?.failing ?? []) as ReadonlyArray<{ cost: number }>).map((f) => f.cost),
        [perTrial, perTrial]
      )
      assert.closeTo(summaryJson?.cost as number, 6 * perTrial, 1e-12)
      // Each trial's journal line keeps its cost; its trace has the loop's spend.settled.
      const journal = join(where.report, "journal.jsonl")
      const trials = jsonLines(readFileSync(journal, "utf8")).filter((l) => l.type === "trial")
      assert.deepStrictEqual(
        trials.map((t) => t.cost),
        Array.from({ length: 6 }, () => perTrial)
      )
      const trace = readFileSync(join(where.report, "traces", "done.fixed.0.jsonl"), "utf8")
      const settled = jsonLines(trace).filter((e) => e.type === "spend.settled")
      assert.deepStrictEqual(
        settled.map((e) => e.spent),
        [{ input_tokens: usage.input, output_tokens: usage.output, cost: perTrial }]
      )
      // Resumed trials keep their recorded cost, not recounted: trial 5's is changed in the journal.
      const lines = readFileSync(journal, "utf8")
        .split("\n")
        .filter((l) => l !== "")
      const changed = lines.map((l) => {
        const parsed = JSON.parse(l) as Record<string, unknown>
        return parsed.index === 5 ? JSON.stringify({ ...parsed, cost: 1 }) : l
      })
      writeFileSync(journal, `${changed.join("\n")}\n`)
      const again = await harness(
        trialArgs(fake, 6, ["--price", "input=3,output=15", "--report", where.report, where.cases])
      )
      assert.strictEqual(again.code, 0, `${again.stdout}\n${again.stderr}`)
      assert.strictEqual(fake.requestsTo("anthropic").length, 6)
      assert.include(again.lines.at(-2) ?? "", ` · $${(1 + 5 * perTrial).toFixed(4)} · `, again.stdout)
    }
  )

  it("no --price: the shipped table's price for the model, when it has one", SLOW, async () => {
    const usage = { input: 2000, output: 500 }
    const fake = await start({
      anthropic: Array.from({ length: 2 }, () => FakeProvider.reply([Message.text("done")], { usage }))
    })
    const where = caseFolder()
    const entry = Prices.find("anthropic", "claude-sonnet-4-5")
    assert.isDefined(entry)
    const price = entry?.price ?? { input: Number.NaN, output: Number.NaN }
    const perTrial = (usage.input * price.input + usage.output * price.output) / 1_000_000
    const args = trialArgs(fake, 2, ["--report", where.report, where.cases]).map((a) =>
      a === "anthropic:test-model" ? "anthropic:claude-sonnet-4-5" : a
    )
    const r = await harness(args)
    assert.strictEqual(r.code, 0, `${r.stdout}\n${r.stderr}`)
    const line = r.lines.find((l) => l.startsWith("PASS  says done (fixed)")) ?? ""
    assert.include(line, ` · 5.0k tokens · $${(2 * perTrial).toFixed(4)} · `, r.stdout)
  })

  it("bad flags: exit 2 naming the flag, nothing sent", SLOW, async () => {
    const fake = await start({ anthropic: [] })
    const where = caseFolder()
    const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [trialArgs(fake, 0, [where.cases]), "--trials"],
      [["test", "--trials", "3", where.cases], "--trials needs --model"],
      [["test", "--model", "anthropic:test-model", where.cases], "--model needs --trials"],
      [trialArgs(fake, 2, ["--variant", "fixed", "--variant", "fixed", where.cases]), "--variant fixed is given twice"],
      [
        trialArgs(fake, 2, ["--variant", "fixed", "--variant", "before", "--variant", "fixed", where.cases]),
        "--variant is given 3 times"
      ],
      [["test", "--trials", "2", "--model", "anthropic:m", "--concurrency", "0", where.cases], "--concurrency"],
      [trialArgs(fake, 2, ["--report", where.file, where.cases]), `--report ${where.file}`],
      [["test", "--concurrency", "2", where.cases], "--concurrency runs only with --trials"],
      [trialArgs(fake, 2, ["--traces", where.report, where.cases]), "--traces (each trial's trace"],
      [trialArgs(fake, 2, ["--workers", "2", where.cases]), "--workers (trials run --concurrency at once"],
      [trialArgs(fake, 2, ["--cluster", where.cases]), "--cluster runs the trials on the runners of --engine postgres"],
      [
        trialArgs(fake, 2, ["--database-url", "postgres://u@127.0.0.1:1/db", where.cases]),
        "--database-url is for --engine postgres"
      ],
      [["test", "--all-traces", where.cases], "--all-traces runs only with --trials"],
      [["test", "--trials", "2", "--model", "nope:m", where.cases], "--model"],
      [trialArgs(fake, 2, ["--price", "input=3", where.cases]), '--price "input=3": price: output is required'],
      [
        trialArgs(fake, 2, ["--price", "input=3,output=lots", where.cases]),
        '--price "input=3,output=lots": price: output must be a number of USD per million tokens, got "lots"'
      ],
      [
        trialArgs(fake, 2, ["--price", "input=3,output=15,tip=1", where.cases]),
        '--price "input=3,output=15,tip=1": price: unknown key "tip"'
      ],
      [["test", "--price", "input=3,output=15", where.cases], "--price runs only with --trials"]
    ]
    for (const [args, says] of cases) {
      const r = await harness(args)
      assert.strictEqual(r.code, 2, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`)
      assert.include(r.stderr, says, args.join(" "))
    }
    assert.strictEqual(fake.requests.length, 0)
  })

  it("resumes: the same --report again sends only the trials its journal lacks", SLOW, async () => {
    const fake = await start({ anthropic: fourOfSix() })
    const where = caseFolder({ threshold: { minPassRate: 0.6 } })
    const first = await harness(trialArgs(fake, 6, ["--report", where.report, where.cases]))
    assert.strictEqual(first.code, 0, first.stderr)
    const journal = join(where.report, "journal.jsonl")
    const kept = readFileSync(journal, "utf8").split("\n").slice(0, 4)
    // The header and three trials (0, 1, 2), and a torn last line as kill -9 leaves it.
    writeFileSync(journal, `${kept.join("\n")}\n{"type":"trial","fi`)
    fake.push("anthropic", ...["done", "not done", "done"].map((text) => FakeProvider.reply([Message.text(text)])))
    const again = await harness(trialArgs(fake, 6, ["--report", where.report, where.cases]))
    assert.strictEqual(again.code, 0, `${again.stdout}\n${again.stderr}`)
    assert.strictEqual(fake.requestsTo("anthropic").length, 9)
    assert.include(again.stdout, "3 resumed")
    assert.include(again.stdout, "4/6 passed")
    // Another trial count is another run: refused, naming the folder.
    const other = await harness(trialArgs(fake, 5, ["--report", where.report, where.cases]))
    assert.strictEqual(other.code, 2, other.stdout)
    assert.include(other.stderr, `--report ${where.report}`)
    assert.strictEqual(fake.requestsTo("anthropic").length, 9)
  })

  it("two variants: a comparison line per case and for all cases", SLOW, async () => {
    const fake = await start({
      anthropic: Array.from({ length: 8 }, () => FakeProvider.reply([Message.text("done")]))
    })
    const where = caseFolder()
    const r = await harness(
      trialArgs(fake, 4, ["--variant", "before", "--variant", "fixed", "--report", where.report, where.cases])
    )
    assert.strictEqual(r.code, 0, `${r.stdout}\n${r.stderr}`)
    assert.isTrue(
      r.lines.some((l) => l.startsWith("PASS  says done (before)  4/4 passed")),
      r.stdout
    )
    assert.isTrue(
      r.lines.some((l) => l.startsWith("PASS  says done (fixed)  4/4 passed")),
      r.stdout
    )
    assert.isTrue(
      r.lines.some(
        (l) => l.startsWith("  says done: fixed vs before: 0 points") && l.endsWith("within noise: no difference shown")
      ),
      r.stdout
    )
    assert.isTrue(
      r.lines.some((l) => l.startsWith("  all cases: fixed vs before: 0 points")),
      r.stdout
    )
    assert.strictEqual(r.lines.at(-1), "1 passed, 0 failed")
  })

  it("Ctrl-C stops starting trials: exit 130, and the same command resumes", SLOW, async () => {
    const fake = await start({ anthropic: fourOfSix() })
    const where = caseFolder({ threshold: { minPassRate: 0.6 } })
    const r = await harness(trialArgs(fake, 6, ["--report", where.report, where.cases]), () => {
      const poll = setInterval(() => {
        if (fake.requests.length >= 1) {
          clearInterval(poll)
          process.emit("SIGINT", "SIGINT")
        }
      }, 1)
    })
    assert.strictEqual(r.code, 130, `${r.stdout}\n${r.stderr}`)
    const said = /interrupted: (\d+) of 6 trials done; run the same command again to resume/.exec(r.stderr)
    assert.isNotNull(said, r.stderr)
    const done = Number(said?.[1])
    assert.isBelow(done, 6)
    const sent = fake.requestsTo("anthropic").length
    assert.strictEqual(sent, done)
    const again = await harness(trialArgs(fake, 6, ["--report", where.report, where.cases]))
    assert.strictEqual(again.code, 0, `${again.stdout}\n${again.stderr}`)
    assert.strictEqual(fake.requestsTo("anthropic").length, 6)
  })

  it("a 429 on one trial's request holds the other trials too (one backoff for the run)", SLOW, async () => {
    const fake = await start({
      anthropic: [
        FakeProvider.error(429, { retryAfterMs: 1500 }),
        ...Array.from({ length: 3 }, () => FakeProvider.reply([Message.text("done")]))
      ]
    })
    const where = caseFolder()
    // When each request arrived (a lower bound only: a slow machine makes the gaps longer, never shorter).
    const arrived: Array<number> = []
    let poll: ReturnType<typeof setInterval> | undefined
    const r = await harness(
      [
        ...trialArgs(fake, 3, ["--report", where.report, where.cases]).filter(
          (a) => a !== "1" && a !== "--concurrency"
        ),
        "--concurrency",
        "2"
      ],
      () => {
        poll = setInterval(() => {
          while (arrived.length < fake.requests.length) arrived.push(Date.now())
        }, 1)
      }
    )
    clearInterval(poll)
    assert.strictEqual(r.code, 0, `${r.stdout}\n${r.stderr}`)
    assert.strictEqual(fake.requestsTo("anthropic").length, 4)
    assert.isTrue(
      r.lines.some((l) => l.startsWith("PASS  says done (fixed)  3/3 passed")),
      r.stdout
    )
    // Two requests went out at once; one was refused for 1.5 s. The third trial's request, and the
    // refused one's retry, both waited out the hold, though the third trial's own model was never refused.
    const [first = 0, , third = 0, fourth = 0] = arrived
    assert.isAtLeast(third - first, 1200, arrived.join(", "))
    assert.isAtLeast(fourth - first, 1200, arrived.join(", "))
  })

  it(
    "other scenarios run once beside the trials; reserved live cases on their own line; one closing line",
    SLOW,
    async () => {
      const fake = await start({ anthropic: fourOfSix() })
      const where = caseFolder({ threshold: { minPassRate: 0.6 } })
      writeFileSync(
        join(where.cases, "held.json"),
        JSON.stringify(liveCase({ name: "held out", reserved: true, threshold: { minPassRate: 0.6 } }))
      )
      const salmorejo = readFileSync(join(scenariosDir, "en", "salmorejo.json"), "utf8")
      writeFileSync(join(where.cases, "salmorejo.json"), salmorejo)
      const r = await harness(trialArgs(fake, 3, ["--report", where.report, where.cases]))
      assert.strictEqual(r.code, 0, `${r.stdout}\n${r.stderr}`)
      assert.strictEqual(fake.requestsTo("anthropic").length, 6)
      assert.isTrue(
        r.lines.some((l) => l.startsWith("PASS ") && l.includes("salmorejo")),
        r.stdout
      )
      const reserved = r.lines.findIndex((l) => l.startsWith("reserved: PASS  held out (fixed)  2/3 passed"))
      const open = r.lines.findIndex((l) => l.startsWith("PASS  says done (fixed)  2/3 passed"))
      assert.isAbove(reserved, open, r.stdout)
      assert.deepStrictEqual(r.lines.slice(-2), ["reserved: 1 passed, 0 failed", "3 passed, 0 failed"])
    }
  )

  it("a report folder under the paths: its captured trials are not taken for cases the next time", SLOW, async () => {
    const fake = await start({ anthropic: fourOfSix() })
    const where = caseFolder({ threshold: { minPassRate: 0.6 } })
    const report = join(where.cases, "report")
    const first = await harness(trialArgs(fake, 6, ["--report", report, where.cases]))
    assert.strictEqual(first.code, 0, `${first.stdout}\n${first.stderr}`)
    assert.isTrue(readFileSync(join(report, "captured", "done.fixed.1.json"), "utf8").length > 0)
    const again = await harness(trialArgs(fake, 6, ["--report", report, where.cases]))
    assert.strictEqual(again.code, 0, `${again.stdout}\n${again.stderr}`)
    assert.include(again.stderr, `2 file(s) under --report ${report} left out`)
    assert.include(again.stdout, "6 resumed")
    assert.strictEqual(again.lines.at(-1), "1 passed, 0 failed")
    assert.strictEqual(fake.requestsTo("anthropic").length, 6)
  })
})
