import { describe, expect, it } from "@effect/vitest"
import { PlanDiff, Render } from "../src/index.ts"
import { after, before, step } from "./fixtures.ts"

const ESC = String.fromCharCode(27)
const stripAnsi = (s: string): string => s.replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "")

const d = PlanDiff.diff(before, after)
const none: PlanDiff.PlanDiff = { removed: [], added: [], revised: [] }

const expectedText = [
  '- 3 read {"path":"a"}',
  '~ 4 read {"path":"a"} → read {"path":"b"}',
  '+ 5 append {"content":"y","path":"log.txt"}',
  '+ 6 write {"path":"out.txt","content":"x"}'
].join("\n")

describe("Render.text", () => {
  it("lists removed, then revised (old → new), then added, each by id, args in their key order", () => {
    expect(Render.text(d, before, after)).toBe(expectedText)
  })

  it("sorts each group by id even when the diff's lists are not sorted", () => {
    const old = [step(1, "a", {}), step(2, "b", {}), step(3, "c", {})]
    const unsorted: PlanDiff.PlanDiff = { removed: [3, 1, 2], added: [], revised: [] }
    expect(Render.text(unsorted, old, [])).toBe("- 1 a {}\n- 2 b {}\n- 3 c {}")
  })

  it("renders nested args as compact JSON in their original key order", () => {
    const old = [step(7, "search", { z: 1, a: { y: [1, "2", null], b: true } })]
    const next = [step(7, "search", { a: { b: true, y: [1, "2", null] }, z: 2 })]
    expect(Render.text(PlanDiff.diff(old, next), old, next)).toBe(
      '~ 7 search {"z":1,"a":{"y":[1,"2",null],"b":true}} → search {"a":{"b":true,"y":[1,"2",null]},"z":2}'
    )
  })

  it("shows a revised tool with the same args", () => {
    const old = [step(1, "read", { path: "a" })]
    const next = [step(1, "write", { path: "a" })]
    expect(Render.text(PlanDiff.diff(old, next), old, next)).toBe('~ 1 read {"path":"a"} → write {"path":"a"}')
  })

  it("shows the last occurrence of a duplicate id, as the diff compares it", () => {
    const old = [step(1, "read", { path: "a" }), step(1, "read", { path: "b" })]
    const next = [step(1, "read", { path: "c" })]
    expect(Render.text(PlanDiff.diff(old, next), old, next)).toBe('~ 1 read {"path":"b"} → read {"path":"c"}')
  })

  it("shows ? for an id the plan does not hold", () => {
    expect(Render.text({ removed: [9], added: [], revised: [] }, [], [])).toBe("- 9 ?")
  })

  it("says (no change) for an empty diff", () => {
    expect(Render.text(none, before, before)).toBe("(no change)")
  })
})

describe("Render.ansi", () => {
  it("strikes removed steps in red, colours revised yellow and highlights added in bold green", () => {
    expect(Render.ansi(d, before, after)).toBe(
      [
        `${ESC}[9;31m- 3 read {"path":"a"}${ESC}[0m`,
        `${ESC}[33m~ 4 read {"path":"a"} → read {"path":"b"}${ESC}[0m`,
        `${ESC}[1;32m+ 5 append {"content":"y","path":"log.txt"}${ESC}[0m`,
        `${ESC}[1;32m+ 6 write {"path":"out.txt","content":"x"}${ESC}[0m`
      ].join("\n")
    )
  })

  it("is the text rendering once the escapes are removed", () => {
    expect(stripAnsi(Render.ansi(d, before, after))).toBe(Render.text(d, before, after))
  })

  it("says (no change), uncoloured, for an empty diff", () => {
    expect(Render.ansi(none, before, before)).toBe("(no change)")
  })
})

describe("Render.render and Render.shouldColor", () => {
  it("chooses ansi or text by the color option", () => {
    expect(Render.render(d, before, after, { color: true })).toBe(Render.ansi(d, before, after))
    expect(Render.render(d, before, after, { color: false })).toBe(expectedText)
  })

  it("colours a TTY when NO_COLOR is unset or empty", () => {
    expect(Render.shouldColor({ isTTY: true }, {})).toBe(true)
    expect(Render.shouldColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true)
    expect(Render.shouldColor({ isTTY: true }, { NO_COLOR: undefined, TERM: "xterm" })).toBe(true)
  })

  it("never colours when NO_COLOR is set, whatever its value", () => {
    expect(Render.shouldColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false)
    expect(Render.shouldColor({ isTTY: true }, { NO_COLOR: "0" })).toBe(false)
  })

  it("never colours a stream that is not a TTY", () => {
    expect(Render.shouldColor({ isTTY: false }, {})).toBe(false)
    expect(Render.shouldColor({}, {})).toBe(false)
    expect(Render.shouldColor({ isTTY: undefined }, {})).toBe(false)
  })

  it("gives output without escapes under NO_COLOR or off a TTY", () => {
    for (const [stream, env] of [
      [{ isTTY: true }, { NO_COLOR: "1" }],
      [{ isTTY: false }, {}],
      [{}, {}]
    ] as const) {
      const out = Render.render(d, before, after, { color: Render.shouldColor(stream, env) })
      expect(out.includes(ESC)).toBe(false)
      expect(out).toBe(expectedText)
    }
  })
})

describe("Render.json", () => {
  it("is the compact JSON of the diff", () => {
    expect(Render.json(d)).toBe('{"removed":[3],"added":[5,6],"revised":[4]}')
    expect(Render.json(none)).toBe('{"removed":[],"added":[],"revised":[]}')
  })

  it("has the three fields in order, whatever order the value lists them in", () => {
    expect(Render.json({ revised: [1], added: [2], removed: [3] })).toBe('{"removed":[3],"added":[2],"revised":[1]}')
  })
})
