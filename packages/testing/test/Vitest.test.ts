import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { Variant } from "@agent-harness/scenario"
import { execFileSync } from "node:child_process"
import { check, discover, entry, find, ScenarioError, scenarioTests, variant } from "../src/Vitest.ts"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "agent-harness-testing-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const write = (relative: string, content: unknown): string => {
  const file = path.join(root, relative)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2))
  return file
}

/** A one-call conversation; `seen` is the content the file expects the model to be shown. */
const conversation = (fields: Record<string, unknown>, seen = "hello") => ({
  format: 1,
  kind: "conversation",
  user: "Read a.txt",
  files: { "a.txt": "hello" },
  turns: [
    {
      reply: [{ type: "tool_use", id: "r1", name: "read", input: { path: "a.txt" } }],
      expect: [{ type: "tool_result", tool_use_id: "r1", is_error: false, content: seen }]
    },
    { reply: [{ type: "text", text: "It says hello." }] }
  ],
  outcome: { stop: "end", text: "It says hello." },
  ...fields
})

// Written at collection time, so that `scenarioTests` below finds them.
const passing = path.join(root, "passing")
write("passing/b/second.json", conversation({ name: "second" }))
write("passing/a.json", conversation({}))
write("passing/held-out.json", conversation({ name: "held out", reserved: true }))
write("passing/notes.txt", "not a scenario")
write("passing/c/d/deep.json", conversation({ name: "deep" }))

const failing = write("failing/wrong-observation.json", conversation({ name: "wrong" }, "goodbye"))
const invalid = write("failing/invalid.json", {
  format: 1,
  kind: "conversation",
  turns: [{ reply: [{ type: "tool_use", name: "read", input: {} }], expect: [] }],
  outcome: { stop: "end" }
})
// The seed 003 regression: the `before` parser takes a TIMEOUT with content as the answer.
const cases = path.join(root, "cases")
const timeout = write("cases/timeout.json", {
  format: 1,
  kind: "response-cases",
  name: "timeout is a failure",
  cases: [
    {
      id: "reg-001",
      role: "regression",
      response: { status: "error", error_code: "TIMEOUT", content: "timed out after 5 s" },
      expected: { ok: false, error_code: "TIMEOUT", message: "timed out after 5 s" }
    },
    {
      id: "ctl-001",
      role: "control",
      response: { status: "ok", content: "" },
      expected: { ok: true, answer: "" }
    }
  ]
})
const notJson = write("failing/broken.json", '{ "format": 1,')
// A folder with a live case beside a conversation.
const mixed = path.join(root, "mixed")
const liveCase = write("mixed/live.json", {
  format: 1,
  kind: "live",
  name: "says done",
  user: "Say done.",
  pass: [{ text: "done" }]
})
write("mixed/conversation.json", conversation({ name: "a conversation" }))

describe("discover", () => {
  it("finds every *.json under the folders, nested ones too, sorted; other files ignored", () => {
    expect(discover(passing).map((f) => path.relative(root, f))).toStrictEqual([
      path.join("passing", "a.json"),
      path.join("passing", "b", "second.json"),
      path.join("passing", "c", "d", "deep.json"),
      path.join("passing", "held-out.json")
    ])
  })

  it("takes several paths, a file given directly, and drops repeats", () => {
    const direct = path.join(passing, "notes.txt")
    const found = discover([path.join(passing, "c"), direct, path.join(passing, "c", "d", "deep.json")])
    expect(found).toStrictEqual([path.join(passing, "c", "d", "deep.json"), direct])
  })

  it("a path that does not exist throws, naming it", () => {
    const missing = path.join(root, "nowhere")
    expect(() => discover(missing)).toThrow(
      `scenario path '${missing}' cannot be read: NotFound: FileSystem.stat (${missing})`
    )
  })

  it("as harness test does: links to folders are not followed, what is not a regular file is skipped", () => {
    const linked = path.join(root, "linked")
    write("linked/x.json", conversation({ name: "x" }))
    fs.symlinkSync("..", path.join(linked, "up"))
    fs.symlinkSync(".", path.join(linked, "self"))
    execFileSync("mkfifo", [path.join(linked, "pipe.json")], { timeout: 10_000 })
    expect(find(linked)).toStrictEqual({
      files: [path.join(linked, "x.json")],
      skipped: [
        { file: path.join(linked, "pipe.json"), reason: "a FIFO (named pipe), not a regular file" },
        { file: path.join(linked, "self"), reason: "a link to a folder (not followed)" },
        { file: path.join(linked, "up"), reason: "a link to a folder (not followed)" }
      ]
    })
    expect(discover(linked)).toStrictEqual([path.join(linked, "x.json")])
    // A FIFO given directly is kept, and never opened: its test fails with the reason.
    const fifo = path.join(linked, "pipe.json")
    expect(discover(fifo)).toStrictEqual([fifo])
    expect(entry(fifo)).toMatchObject({ name: "pipe", title: "pipe" })
  })
})

describe("entry", () => {
  it("names a test by the scenario's name, or the file name; reserved ones are marked", () => {
    expect(entry(path.join(passing, "b", "second.json"))).toMatchObject({ name: "second", title: "second" })
    expect(entry(path.join(passing, "a.json"))).toMatchObject({ name: "a", reserved: false, title: "a" })
    expect(entry(path.join(passing, "held-out.json"))).toMatchObject({
      name: "held out",
      reserved: true,
      title: "held out [reserved]"
    })
    expect(entry(invalid)).toMatchObject({ name: "invalid", title: "invalid" })
  })
})

/** The message `check` rejects with. */
const rejection = (file: string, name?: string): Promise<string> =>
  check(file, { variant: name }).then(
    () => "(it passed)",
    (error: unknown) => (error instanceof Error ? error.message : String(error))
  )

describe("check", () => {
  it("resolves with the verdict of a passing scenario", async () => {
    const verdict = await check(path.join(passing, "a.json"))
    expect(verdict).toMatchObject({ name: "a", passed: true, outcome: { stop: "end", turns: 2 } })
  })

  it("a failing scenario rejects with its verdict's failures", async () => {
    const error = await check(failing).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(ScenarioError)
    expect(error instanceof ScenarioError && error.verdict?.passed).toBe(false)
    expect(error instanceof Error && error.message).toBe(
      [
        "FAIL wrong (diverged, 2 model calls)",
        "    turn 1, tool_use_id r1: a different observation",
        `      expected: r1 is_error=false "goodbye"`,
        `      seen:     r1 is_error=false "hello"`
      ].join("\n")
    )
  })

  it("a scenario whose outcome differs rejects with each difference", async () => {
    const file = write(
      "failing/outcome.json",
      conversation({ name: "outcome", outcome: { stop: "end", text: "Bye." } })
    )
    expect(await rejection(file)).toBe(
      [
        "FAIL outcome (end, 2 model calls)",
        "    the final text differs",
        `      expected: "Bye."`,
        `      seen:     "It says hello."`
      ].join("\n")
    )
  })

  it("an invalid file rejects with the JSON path of its first bad field", async () => {
    expect(await rejection(invalid)).toBe(`INVALID ${invalid}: turns[0].reply[0].id: missing`)
    expect(await rejection(notJson)).toMatch(`INVALID ${notJson}: (root): invalid JSON (line 1, column 15): `)
  })
})

describe("variants", () => {
  it("a built-in name, the default, a Variant of your own; an unknown name throws", () => {
    expect(variant("before")).toBe(Variant.before)
    expect(variant(undefined)).toBe(Variant.defaultVariant)
    const mine: Variant.Variant = { ...Variant.fixed, name: "mine" }
    expect(variant(mine)).toBe(mine)
    expect(() => variant("after")).toThrow("unknown variant 'after': expected one of 'fixed', 'before'")
  })

  it("check runs a scenario under the variant", async () => {
    expect(await check(timeout, { variant: "fixed" })).toMatchObject({ passed: true })
    expect(await rejection(timeout)).toBe("(it passed)")
    const failed = await rejection(timeout, "before")
    expect(failed).toMatch(/^FAIL timeout is a failure /)
    expect(failed).toContain(`expected: {"ok":false,"error_code":"TIMEOUT","message":"timed out after 5 s"}`)
    expect(failed).toContain(`seen:     {"ok":true,"answer":"timed out after 5 s"}`)
  })
})

describe("scenarioTests", () => {
  const registered = scenarioTests(passing)

  it("registered one test per file, in order, reserved ones marked", () => {
    expect(registered.map((e) => e.title)).toStrictEqual(["a", "second", "deep", "held out [reserved]"])
  })
})

describe("scenarioTests with live cases", () => {
  const registered = scenarioTests(mixed)

  it("leaves a live case out: no test for it, failing or skipped, and not in the result", () => {
    expect(discover(mixed)).toContain(liveCase)
    expect(entry(liveCase).title).toBe("says done")
    expect(registered.map((e) => e.title)).toStrictEqual(["a conversation"])
  })

  it("check of a live case rejects: it needs a live model", async () => {
    const error = await check(liveCase).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ScenarioError)
    expect((error as ScenarioError).message).toContain("needs --model")
    expect((error as ScenarioError).verdict?.notRun).toBeDefined()
  })
})

describe("scenarioTests under a variant", () => {
  const registered = scenarioTests(cases, { variant: "fixed" })

  it("registered the case set", () => {
    expect(registered.map((e) => e.title)).toStrictEqual(["timeout is a failure"])
  })

  it("an unknown variant fails at once", () => {
    expect(() => scenarioTests(cases, { variant: "after" })).toThrow("unknown variant 'after'")
  })
})
