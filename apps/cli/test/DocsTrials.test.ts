/**
 * The walk-through of docs/trials.md runs as written: each `pnpm harness …` command of the page,
 * in order, in a folder holding the page's live case at `docs/guide/live`, against the loopback
 * fake of Anthropic's API (its replies scripted as flaky as a real model's), with
 * `--concurrency 1` added so that the scripted replies reach the trials in a known order. Each
 * output block of the page must be what its command printed, line for line (`…` stands for
 * anything, times for any time).
 */
import { execFile } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { apiKey, fakeProviders } from "./fixtures/fakes.ts"

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const live = fileURLToPath(new URL("../../../docs/guide/live/catalogue.json", import.meta.url))
const page = fileURLToPath(new URL("../../../docs/trials.md", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "docs-trials-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const start = fakeProviders()

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `harness ARGS` as a child process in the work folder (the fake serves from this one). */
const harness = (url: string, args: ReadonlyArray<string>): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--disable-warning=ExperimentalWarning", main, ...args],
      {
        cwd: work,
        env: { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: `${url}/v1` },
        encoding: "utf8",
        timeout: 120_000,
        killSignal: "SIGKILL"
      },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

/** What the model says when it does what the contract asks, and when it invents an answer. */
const honest = "No he podido consultar el catálogo: no respondió a tiempo. Inténtalo de nuevo en unos minutos."
const invented = "No, «El faro de las mareas lentas» no está disponible ahora mismo."

/** One trial's two replies: the catalogue call, then the answer. */
const trial = (passes: boolean): ReadonlyArray<FakeProvider.Scripted> => [
  FakeProvider.reply([Message.toolUse("toolu_1", "catalogo_buscar", { titulo: "El faro de las mareas lentas" })], {
    stop: "tool_use"
  }),
  FakeProvider.reply([Message.text(passes ? honest : invented)])
]

/** n trials, each passing unless its index is in `fails`. */
const outcomes = (n: number, fails: ReadonlyArray<number>) => Array.from({ length: n }, (_, i) => !fails.includes(i))

/** The trials of two variants in the order they run: interleaved. */
const interleave = (a: ReadonlyArray<boolean>, b: ReadonlyArray<boolean>) => a.flatMap((x, i) => [x, b[i] ?? false])

const script = (trials: ReadonlyArray<boolean>) => trials.flatMap(trial)

/** The page's commands (`pnpm harness …`), each with the output block that follows it. */
const walkThrough = (): ReadonlyArray<{
  readonly args: ReadonlyArray<string>
  readonly shown: ReadonlyArray<string>
}> => {
  const text = readFileSync(page, "utf8")
  const steps: Array<{ args: ReadonlyArray<string>; shown: ReadonlyArray<string> }> = []
  const blocks = [...text.matchAll(/```(\w*)\n([\s\S]*?)```/g)]
  for (const [i, block] of blocks.entries()) {
    if (block[1] !== "sh") continue
    const command = (block[2] ?? "").split("\n").find((line) => line.startsWith("pnpm harness "))
    if (command === undefined) continue
    const next = blocks[i + 1]
    const shown = next !== undefined && next[1] === "" ? (next[2] ?? "").split("\n").filter((l) => l !== "") : []
    steps.push({ args: command.slice("pnpm harness ".length).split(" "), shown })
  }
  return steps
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
/** A shown line as a pattern: `…` anything, a time (`747 ms`, `2 s`) any time. */
const linePattern = (line: string): RegExp =>
  new RegExp(
    `^${line
      .split("…")
      .map((part) => escapeRegExp(part).replace(/\d+(?:\.\d+)? (?:ms|s)\b/g, "\\d+(?:\\.\\d+)? (?:ms|s)"))
      .join(".*")}$`
  )

/** Every shown line is printed, in order (other lines may come between). */
const assertShown = (shown: ReadonlyArray<string>, printed: string, what: string) => {
  const lines = printed.split("\n")
  let at = 0
  for (const line of shown) {
    const pattern = linePattern(line)
    const found = lines.findIndex((l, i) => i >= at && pattern.test(l))
    assert.isAtLeast(found, 0, `${what}: the page shows\n${line}\nbut it printed\n${printed}`)
    at = found + 1
  }
}

describe("docs/trials.md", () => {
  it("without --model the live case is not run: a SKIP line for harness test, exit 2 for harness run", {
    timeout: 120_000
  }, async () => {
    const fake = await start({ anthropic: [] })
    mkdirSync(join(work, "docs/guide/live"), { recursive: true })
    copyFileSync(live, join(work, "docs/guide/live/catalogue.json"))
    const tested = await harness(fake.url, ["test", "docs/guide/live"])
    assert.strictEqual(tested.code, 0, `${tested.stdout}\n${tested.stderr}`)
    assert.include(
      tested.stdout,
      "SKIP catalogue timeout: say it could not be checked: needs --model: a live case runs as trials against a live model (harness test --trials N --model PROVIDER:MODEL)"
    )
    const ran = await harness(fake.url, ["run", "docs/guide/live/catalogue.json"])
    assert.strictEqual(ran.code, 2, `${ran.stdout}\n${ran.stderr}`)
    assert.include(
      ran.stderr,
      "docs/guide/live/catalogue.json is a live case: it runs as trials against a live model, not once with a script; run it with harness test --trials N --model PROVIDER:MODEL docs/guide/live/catalogue.json"
    )
    assert.strictEqual(fake.requests.length, 0)
  })

  it("the walk-through: a flaky run, a captured trial replayed, the variants compared", {
    timeout: 300_000
  }, async () => {
    mkdirSync(join(work, "docs/guide/live"), { recursive: true })
    copyFileSync(live, join(work, "docs/guide/live/catalogue.json"))
    const steps = walkThrough()
    assert.deepStrictEqual(
      steps.map((s) => s.args.slice(0, 3).join(" ")),
      [
        "test --trials 10",
        "run trials/first/captured/catalogue.before.1.json --variant",
        "run trials/first/captured/catalogue.before.1.json --variant",
        "test --trials 10",
        "test --trials 40"
      ].map((s) => s.split(" ").slice(0, 3).join(" "))
    )
    // What the model answers in each run, trial by trial (before fails 4 of 10; fixed 1 of 10).
    const before10 = outcomes(10, [1, 4, 7, 9])
    const before40 = outcomes(40, [1, 4, 7, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 2, 11])
    const replies = [
      script(before10),
      [],
      [],
      script(interleave(before10, outcomes(10, [4]))),
      script(interleave(before40, outcomes(40, [4, 21, 30])))
    ]
    const codes = [1, 1, 1, 1, 1]
    const fake = await start({ anthropic: [] })
    for (const [i, step] of steps.entries()) {
      fake.push("anthropic", ...(replies[i] ?? []))
      const args =
        step.args[0] === "test" ? [...step.args.slice(0, -1), "--concurrency", "1", ...step.args.slice(-1)] : step.args
      const ran = await harness(fake.url, args)
      const what = `pnpm harness ${step.args.join(" ")}`
      assert.strictEqual(ran.code, codes[i], `${what}\n${ran.stdout}\n${ran.stderr}`)
      assertShown(step.shown, ran.stdout, what)
    }
    // Every scripted reply was asked for: no trial more, none less.
    assert.strictEqual(fake.requestsTo("anthropic").length, replies.flat().length)
    // The report folder holds what the page says.
    const report = readFileSync(join(work, "trials/first/report.jsonl"), "utf8").split("\n")[0] ?? ""
    assert.include(report, '"type":"trials.case"')
    assert.include(readFileSync(join(work, "trials/first/journal.jsonl"), "utf8"), '"type":"trials.journal"')
    // The page's harness view of the first run's report: the chart, its bars linked to the
    // failing trials' traces, which it brings from the report's folder.
    const viewed = await harness(fake.url, ["view", "trials/first/report.jsonl", "--out", "first.html"])
    assert.strictEqual(viewed.code, 0, viewed.stderr)
    assert.include(viewed.stderr, "1 trials report, 4 conversation traces")
    const html = readFileSync(join(work, "first.html"), "utf8")
    assert.include(html, '<svg class="trials-chart rates"')
    assert.include(html, '<a class="bar-link" href="#f')
  })
})
