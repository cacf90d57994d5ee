/**
 * The browser code that needs no browser: heights and offsets of a virtual list, deep links,
 * filters, the words of each status.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Filter from "../client/Filter.ts"
import * as Hash from "../client/Hash.ts"
import * as Href from "../client/Href.ts"
import { Sizes } from "../client/Sizes.ts"
import * as Words from "../client/Words.ts"
import { ConversationTrace, Lines, type Model } from "../src/index.ts"
import { broken, hostileHrefs, inertHrefs, long, showcase } from "./fixtures.ts"

describe("Sizes", () => {
  it("adds up estimated and measured heights into offsets, and finds the item at a height", () => {
    const sizes = new Sizes(5, 100)
    expect(sizes.total).toBe(500)
    expect(sizes.indexAt(-5)).toBe(0)
    expect(sizes.indexAt(250)).toBe(2)
    expect(sizes.set(1, 300)).toBe(true)
    expect(sizes.set(1, 300)).toBe(false)
    expect(sizes.set(9, 1)).toBe(false)
    expect([0, 1, 2, 3, 4, 5].map((i) => sizes.offset(i))).toStrictEqual([0, 100, 400, 500, 600, 700])
    expect(sizes.indexAt(399)).toBe(1)
    expect(sizes.indexAt(400)).toBe(2)
    expect(sizes.indexAt(10_000)).toBe(4)
    expect(new Sizes(0, 50).indexAt(10)).toBe(0)
  })

  it("keeps offsets right when an early height changes after a later one", () => {
    const sizes = new Sizes(10_000, 20)
    sizes.set(9_000, 40)
    expect(sizes.offset(9_001)).toBe(9_001 * 20 + 20)
    sizes.set(3, 120)
    expect(sizes.offset(9_001)).toBe(9_001 * 20 + 120)
    expect(sizes.indexAt(sizes.offset(5_000))).toBe(5_000)
  })
})

describe("Hash", () => {
  it("reads deep links to a file, a turn, a revision", () => {
    expect(Hash.parse("")).toStrictEqual({ file: null, place: null })
    expect(Hash.parse("#turn-12")).toStrictEqual({ file: null, place: { kind: "turn", n: 12 } })
    expect(Hash.parse("#f2")).toStrictEqual({ file: "f2", place: null })
    expect(Hash.parse("#f2/revision-3")).toStrictEqual({ file: "f2", place: { kind: "revision", n: 3 } })
    expect(Hash.parse("#nonsense")).toStrictEqual({ file: null, place: null })
    expect(Hash.parse("#%E0%A4%A")).toStrictEqual({ file: null, place: null })
    expect(Hash.parse("#f1%2Fturn-2")).toStrictEqual({ file: "f1", place: { kind: "turn", n: 2 } })
  })

  it("writes short links for the first file of its kind", () => {
    expect(Hash.format("f1", { kind: "turn", n: 4 }, true)).toBe("#turn-4")
    expect(Hash.format("f3", { kind: "turn", n: 4 }, false)).toBe("#f3/turn-4")
    expect(Hash.format("f3", null, false)).toBe("#f3")
    expect(Hash.parse(Hash.format("f3", { kind: "revision", n: 0 }, false))).toStrictEqual({
      file: "f3",
      place: { kind: "revision", n: 0 }
    })
  })
})

describe("Href.safe", () => {
  it("follows anchors, relative paths, http, https and mailto URLs", () => {
    expect(Href.safe("#f2")).toBe("#f2")
    expect(Href.safe("runs/a.jsonl")).toBe("runs/a.jsonl")
    expect(Href.safe("/tmp/t/a.jsonl")).toBe("/tmp/t/a.jsonl")
    expect(Href.safe("../a b.jsonl?x=1")).toBe("../a b.jsonl?x=1")
    expect(Href.safe("https://ci.example/a.jsonl")).toBe("https://ci.example/a.jsonl")
    expect(Href.safe("HTTP://ci.example/a.jsonl")).toBe("http://ci.example/a.jsonl")
    expect(Href.safe("mailto:someone@example.com")).toBe("mailto:someone@example.com")
    // As the browser reads them: stripped at the ends, tabs and newlines dropped.
    expect(Href.safe(" runs/a.jsonl\n")).toBe("runs/a.jsonl")
    expect(Href.safe("ht\ttps://ci.example/a")).toBe("https://ci.example/a")
    // Another host without a scheme: not followed (its scheme would be the page's).
    expect(Href.safe("//ci.example/a.jsonl")).toBeNull()
    expect(Href.safe("\\\\ci.example\\a.jsonl")).toBeNull()
    expect(Href.safe(" /\\ci.example/a.jsonl")).toBeNull()
  })

  it("refuses every other scheme however it is spelt: tab, newline, NUL, space, upper case", () => {
    for (const href of hostileHrefs) expect(Href.safe(href), JSON.stringify(href)).toBeNull()
  })

  it("what it lets through is never a script, however the browser resolves it", () => {
    // Entity-encoded and NUL-broken spellings are no scheme at all once set as an attribute:
    // they stay relative paths (the page never parses HTML), so what comes back is relative.
    for (const href of inertHrefs) {
      const out = Href.safe(href)
      if (out === null) continue
      for (const base of ["file:///tmp/report.html", "http://127.0.0.1:8080/"]) {
        const resolved = new URL(out, base)
        expect(resolved.protocol, `${JSON.stringify(href)} against ${base}`).toBe(new URL(base).protocol)
      }
    }
    for (const href of [...hostileHrefs, "https://a", "#x", "a/b"]) {
      const out = Href.safe(href)
      if (out === null) continue
      expect(["http:", "https:", "file:"]).toContain(new URL(out, "file:///tmp/report.html").protocol)
    }
  })

  it("what does not parse is refused, and nothing thrown", () => {
    expect(Href.safe("http://[::1")).toBeNull()
    expect(Href.safe("https://exa mple.com/")).toBeNull()
    expect(Href.safe("https://")).toBeNull()
    expect(Href.safe(1 as unknown as string)).toBeNull()
  })
})

describe("Filter.turns", () => {
  const file = ConversationTrace.fromLines("f1", "t", Lines.read(showcase()))
  const keep = (filter: Partial<Filter.TurnFilter>) =>
    Filter.turns(file.turns, { query: "", errorsOnly: false, tool: "", ...filter }, []).map((i) => file.turns[i]?.turn)

  it("keeps turns with errors, with a tool, with a text", () => {
    expect(keep({})).toStrictEqual([1, 2, 3, 4])
    expect(keep({ errorsOnly: true })).toStrictEqual([1, 2, 3])
    expect(keep({ tool: "append" })).toStrictEqual([2, 3])
    expect(keep({ tool: "list", errorsOnly: true })).toStrictEqual([2])
    expect(keep({ query: "salmorejo.txt" })).toStrictEqual([1])
    expect(keep({ query: "recipes folder" })).toStrictEqual([2])
    expect(keep({ query: "overloaded" })).toStrictEqual([3])
    expect(keep({ query: "nowhere" })).toStrictEqual([])
  })

  it("counts an unanswered call and an unreadable event as errors", () => {
    const bad = ConversationTrace.fromLines("f1", "t", Lines.read(broken()))
    expect(Filter.turns(bad.turns, { query: "", errorsOnly: true, tool: "" }, [])).toStrictEqual([1])
  })

  it("searches 10,000 turns building each turn's text once", () => {
    const many = ConversationTrace.fromLines("f1", "t", Lines.read(long(10_000)))
    const texts: Array<string | undefined> = []
    expect(Filter.turns(many.turns, { query: "notes/9999.txt", errorsOnly: false, tool: "" }, texts)).toStrictEqual([
      9998
    ])
    expect(texts.filter((t) => t !== undefined)).toHaveLength(10_000)
    expect(Filter.turns(many.turns, { query: "does not exist", errorsOnly: true, tool: "" }, texts)).toHaveLength(1428)
  })
})

describe("Filter.rows", () => {
  const cell = (verdict: Model.Cell["verdict"]): Model.Cell => ({ verdict, summary: "", failures: [], trace: null })
  const row = (name: string, ...cells: ReadonlyArray<Model.Cell | null>): Model.Row => ({
    name,
    file: `${name}.json`,
    kind: "conversation",
    case: null,
    role: null,
    cells
  })
  const rows = [
    row("a", cell("pass"), cell("pass")),
    row("b", cell("fail"), cell("pass")),
    row("c", null, cell("pass"))
  ]

  it("keeps failing rows, rows whose columns differ, rows matching a text", () => {
    const keep = (filter: Partial<Filter.RowFilter>) =>
      Filter.rows(rows, { query: "", failingOnly: false, differingOnly: false, ...filter })
    expect(keep({})).toStrictEqual([0, 1, 2])
    expect(keep({ failingOnly: true })).toStrictEqual([1])
    expect(keep({ differingOnly: true })).toStrictEqual([1, 2])
    expect(keep({ query: "c.json" })).toStrictEqual([2])
  })
})

describe("Words", () => {
  it("gives every status a word, a sign and a meaning, and no two call statuses the same word", () => {
    const calls = Object.values(Words.call)
    expect(new Set(calls.map((w) => w.word)).size).toBe(calls.length)
    for (const w of [...calls, ...Object.values(Words.step), ...Object.values(Words.verdict)]) {
      expect(w.word).not.toBe("")
      expect(w.sign).not.toBe("")
      expect(w.meaning).not.toBe("")
    }
    expect(Words.call.not_executed.word).toBe("not executed")
    expect(Words.call.unknown.word).toBe("outcome unknown")
    expect(Words.count(1, "turn")).toBe("1 turn")
    expect(Words.count(10_000, "turn")).toBe("10,000 turns")
  })
})
