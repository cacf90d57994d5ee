import { Trace } from "@agent-harness/executor"
import { assert, describe, expect, it } from "@effect/vitest"
import * as OldTraces from "../../executor/test/fixtures/oldTraces.ts"
import { Input, Lines } from "../src/index.ts"
import { broken, report, runSession, sessionTrace, showcase } from "./fixtures.ts"

const kind = (text: string) => Input.detect(text, Lines.read(text)).kind

describe("Input.detect: a file's kind from its content", () => {
  it("tells a conversation trace, a plan session, a test report", async () => {
    expect(kind(showcase())).toBe("conversation")
    expect(kind(broken())).toBe("conversation")
    expect(kind(sessionTrace(await runSession()))).toBe("plan")
    expect(kind(report("before"))).toBe("report")
  })

  it("looks past lines it cannot use to the first one it knows", () => {
    expect(kind(["not json", "[1]", '{"type":"usage"}', showcase()].join("\n"))).toBe("conversation")
  })

  it("says why a file is none of them", () => {
    expect(Input.detect("", Lines.read(""))).toStrictEqual({ kind: "unknown", reason: "the file is empty" })
    expect(Input.detect("hello\nworld", Lines.read("hello\nworld"))).toStrictEqual({
      kind: "unknown",
      reason: "no line is JSON"
    })
    expect(Input.detect('{"a":1}', Lines.read('{"a":1}'))).toStrictEqual({
      kind: "unknown",
      reason:
        "none of the first 1 JSON lines is a conversation trace event, a plan session event, a SessionResult, a test verdict or a trials report line"
    })
  })
})

describe("Input.page", () => {
  it("gives each file its section in order, and every test report one section, side by side", async () => {
    const page = Input.page([
      { name: "a.jsonl", text: showcase() },
      { name: "before.jsonl", text: report("before") },
      { name: "s.jsonl", text: sessionTrace(await runSession()) },
      { name: "fixed.jsonl", text: report("fixed") },
      { name: "notes.txt", text: "hello" }
    ])
    expect(page.title).toBe("harness view: a.jsonl, before.jsonl, s.jsonl, fixed.jsonl, notes.txt")
    expect(page.files.map((f) => [f.id, f.kind, f.name])).toStrictEqual([
      ["f1", "conversation", "a.jsonl"],
      ["f2", "report", "before.jsonl + fixed.jsonl"],
      ["f3", "plan", "s.jsonl"],
      ["f5", "unknown", "notes.txt"]
    ])
    const unknown = page.files[3]
    expect(unknown?.problems).toStrictEqual([
      { line: null, path: "(file)", message: "no line is JSON" },
      { line: 1, path: "(line)", message: expect.stringMatching(/^invalid JSON/) }
    ])
  })

  it("takes a title", () => {
    expect(Input.page([], "my run").title).toBe("my run")
    expect(Input.page([]).files).toStrictEqual([])
  })
})

describe("traces written before the one event grammar still read", () => {
  const upgradedText = (text: string): string =>
    text
      .split("\n")
      .map((line) => (line.trim() === "" ? line : JSON.stringify(Trace.upgrade(JSON.parse(line)))))
      .join("\n")

  it("each old file (0.1) is told its kind and drawn as its upgraded lines are, without a problem", () => {
    const expected: Record<(typeof OldTraces.names)[number], string> = {
      "salmorejo.jsonl": "conversation",
      "incident-before.jsonl": "conversation",
      "showcase.jsonl": "conversation",
      "edges.jsonl": "conversation",
      "session.jsonl": "plan",
      "session-unencodable.jsonl": "plan",
      "session-result.json": "plan-result"
    }
    for (const name of OldTraces.names) {
      const text = OldTraces.text(name)
      expect([name, kind(text)]).toStrictEqual([name, expected[name]])
      const [old] = Input.page([{ name, text }]).files
      const today = name.endsWith(".json")
        ? JSON.stringify({
            ...JSON.parse(text),
            events: JSON.parse(text).events.map((event: unknown) => Trace.upgrade(event))
          })
        : upgradedText(text)
      expect(today).not.toMatch(/"type":"(start|observation|session\.start)"/)
      expect([name, old]).toStrictEqual([name, Input.page([{ name, text: today }]).files[0]])
      const problems = old !== undefined && "problems" in old ? old.problems : []
      if (name === "session-unencodable.jsonl")
        expect(problems.map((p) => p.message)).toStrictEqual([
          'the recorder could not encode a line: Expected an integer\n  at ["max_steps"]'
        ])
      else expect([name, problems]).toStrictEqual([name, []])
    }
  })
})

describe("one trace for a loop and a plan session", () => {
  it("a loop's trace with a session beside it reads without a problem; the session's events are kept", async () => {
    const result = await runSession()
    const text = [
      Trace.line({ type: "run.started", messages: [{ role: "user", content: "hi" }], max_turns: 2, tools: [] }),
      Trace.line({ type: "model.requested", turn: 1, messages: 1 }),
      Trace.line({ type: "model.replied", turn: 1, reply: [{ type: "text", text: "planning" }] }),
      Trace.line({ type: "run.ended", stop: "end", text: "planning", turns: 1 }),
      sessionTrace(result)
    ].join("\n")
    expect(kind(text)).toBe("conversation")
    const [file] = Input.page([{ name: "both.jsonl", text }]).files
    assert(file?.kind === "conversation")
    expect(file.problems).toStrictEqual([])
    expect(file.other.map((e) => e.type)).toStrictEqual([
      "session.started",
      ...result.events.map((e) => e.type),
      "session.recorded"
    ])
  })
})
