/**
 * `harness capture` and the output flags end to end: a capture exits 0 only with a scenario that
 * `harness run` passes, and exits 2 naming the trace line and JSON path otherwise; no output flag
 * may overwrite the command's input, whatever name it is given.
 */
import { linkSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { basename, dirname } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { harness, SLOW } from "./fixtures/harness.ts"
import { salmorejoEn, tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("capture")
afterAll(() => temp.remove())

type Event = Record<string, unknown>

/** The trace of the English salmorejo, recorded by the CLI, as JSON objects. */
const recordedTrace = (): ReadonlyArray<Event> => {
  const trace = temp.path("recorded.jsonl")
  const r = harness(["run", salmorejoEn, "--trace", trace])
  assert.strictEqual(r.code, 0, r.stderr)
  return readFileSync(trace, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Event)
}

const lineOf = (events: ReadonlyArray<Event>, type: string, n = 0): number =>
  events.flatMap((e, i) => (e.type === type ? [i + 1] : []))[n] ?? 0

describe("harness capture → harness run", () => {
  it("every trace either captures into a scenario that passes, or exits 2 naming the line and path", {
    timeout: 180_000
  }, () => {
    const base = recordedTrace()
    const start = lineOf(base, "run.started")
    const observation = lineOf(base, "call.answered", 1)
    const edit = (line: number, change: (e: Event) => Event) => base.map((e, i) => (i + 1 === line ? change(e) : e))
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<Event>, string | undefined]> = [
      ["as recorded", base, undefined],
      [
        "max_turns 0",
        edit(start, (e) => ({ ...e, max_turns: 0 })),
        `line ${start}: max_turns: must be at least 1, got 0: such a run cannot be replayed`
      ],
      [
        "a tools annotation that is not an object",
        [...base.slice(0, 1), { type: "trace.annotated", key: "tools", value: "catalogo" }, ...base.slice(1)],
        `line 2: value: tools must be an object of scripted tools, got "catalogo"`
      ],
      [
        "an observation whose id is not its call's",
        edit(observation, (e) => ({ ...e, result: { ...(e.result as Event), tool_use_id: "t9" } })),
        `line ${observation}: result.tool_use_id: expected 't2' (turn 2's calls in order: t2, t3), got 't9'`
      ]
    ]
    for (const [name, events, refusal] of cases) {
      const trace = temp.write(
        `traces/${name.replaceAll(" ", "-")}.jsonl`,
        events.map((e) => JSON.stringify(e)).join("\n")
      )
      const out = temp.path(`traces/${basename(trace, ".jsonl")}.json`)
      const captured = harness(["capture", trace, "--out", out])
      if (refusal === undefined) {
        assert.strictEqual(captured.code, 0, `${name}: ${captured.stderr}`)
        const replay = harness(["run", out])
        assert.strictEqual(replay.code, 0, `${name}: ${replay.stdout}`)
      } else {
        assert.strictEqual(captured.code, 2, `${name}: ${captured.stderr}`)
        assert.strictEqual(captured.stderr, `INVALID ${trace}: ${refusal}\n`, name)
      }
    }
  })
})

describe("an output flag never overwrites the input", () => {
  it("run X --trace X, ./X, a symbolic link or a hard link to X: exit 2, the scenario untouched", SLOW, () => {
    const scenario = temp.write("self/s.json", readFileSync(salmorejoEn, "utf8"))
    const before = readFileSync(scenario, "utf8")
    symlinkSync(scenario, temp.path("self/link.jsonl"))
    linkSync(scenario, temp.path("self/hard.jsonl"))
    for (const [trace, cwd] of [
      [scenario, undefined],
      ["./s.json", dirname(scenario)],
      [temp.path("self/link.jsonl"), undefined],
      [temp.path("self/hard.jsonl"), undefined]
    ] as const) {
      const r = harness(["run", scenario, "--trace", trace], undefined, cwd === undefined ? {} : { cwd })
      assert.strictEqual(r.code, 2, `${trace}: ${r.stdout}`)
      assert.strictEqual(
        r.stderr,
        `--trace ${trace}: it is the scenario (${scenario}), which it would overwrite; nothing was run or written\n`
      )
      assert.strictEqual(r.stdout, "")
      assert.strictEqual(readFileSync(scenario, "utf8"), before)
    }
  })

  it("capture T --out T: exit 2, the trace untouched; --trace to a folder: exit 2", SLOW, () => {
    const trace = temp.write("self/t.jsonl", "{}\n")
    const r = harness(["capture", trace, "--out", trace])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `--out ${trace}: it is the trace (${trace}), which it would overwrite; nothing was run or written\n`
    )
    assert.strictEqual(readFileSync(trace, "utf8"), "{}\n")
    const folder = temp.path("self")
    const d = harness(["run", salmorejoEn, "--trace", folder])
    assert.strictEqual(d.code, 2)
    assert.strictEqual(d.stderr, `--trace ${folder}: it is a folder; nothing was run or written\n`)
  })

  it("a trace written elsewhere still works: exit 0", SLOW, () => {
    const trace = temp.path("self/elsewhere.jsonl")
    writeFileSync(trace, "old content")
    const r = harness(["run", salmorejoEn, "--trace", trace])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.match(readFileSync(trace, "utf8"), /^\{"type":"trace.annotated","key":"variant","value":"fixed"\}\n/)
  })
})
