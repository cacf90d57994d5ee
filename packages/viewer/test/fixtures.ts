/**
 * Inputs for the viewer's tests, made by the harness's own code where it has any: conversation
 * events typed as `Trace.Event` and written by `Trace.line`, plan sessions run through the real
 * `Session.run` and written by the planner's `SessionTrace`, test verdicts typed as `Verdict.Verdict` and written
 * by `Report.json`.
 */
import { Trace } from "@agent-harness/executor"
import { RulePlanner, Session, type SessionResult, SessionTrace, Step } from "@agent-harness/planner"
import { Report, ScenarioFile, type Verdict } from "@agent-harness/scenario"
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { Data, Effect, Schema } from "effect"

const lines = (events: ReadonlyArray<Trace.Event>): Array<string> => events.map(Trace.line)

/**
 * A conversation with every kind of call: failed, not executed, ok, denied, outcome unknown,
 * replayed; a reasoning block; a `usage` and a `retry` event from a newer harness; turn 2
 * streamed (`model.replied` with `streamed: true`), the others not.
 */
export const showcase = (): string =>
  [
    ...lines([
      { type: "trace.annotated", key: "locale", value: "en" },
      {
        type: "run.started",
        messages: [
          { role: "system", content: "You work with the user's files through your tools." },
          { role: "user", content: "Add what salmorejo needs to list.txt." }
        ],
        max_turns: 10,
        tools: ["read", "list", "append"]
      },
      { type: "model.requested", turn: 1, messages: 2 },
      {
        type: "model.replied",
        turn: 1,
        reply: [
          { type: "text", text: "I'll read the recipe and the list." },
          { type: "tool_use", id: "c1", name: "read", input: { path: "recipes/salmorejo.txt" } },
          { type: "tool_use", id: "c2", name: "read", input: { file: "list.txt" } }
        ]
      },
      { type: "call.started", turn: 1, tool_use_id: "c1", name: "read", input: { path: "recipes/salmorejo.txt" } },
      { type: "call.started", turn: 1, tool_use_id: "c2", name: "read", input: { file: "list.txt" } },
      Trace.observation(1, {
        _tag: "Failed",
        id: "c1",
        name: "read",
        failure: { _tag: "ToolError", error: { message: "file 'recipes/salmorejo.txt' does not exist" } },
        content: "file 'recipes/salmorejo.txt' does not exist"
      }),
      {
        type: "call.answered",
        turn: 1,
        outcome: "NotExecuted",
        result: {
          type: "tool_result",
          tool_use_id: "c2",
          content: "not executed: missing field 'path'",
          is_error: true
        }
      },
      { type: "model.requested", turn: 2, messages: 4 }
    ]),
    JSON.stringify({
      type: "model.replied",
      turn: 2,
      streamed: true,
      reply: [
        { type: "thinking", thinking: "The recipe is missing. List the recipes folder first." },
        { type: "tool_use", id: "c3", name: "list", input: { folder: "recipes/" } },
        { type: "tool_use", id: "c4", name: "append", input: { path: "list.txt", text: ", tomatoes" } }
      ]
    }),
    ...lines([
      {
        type: "call.answered",
        turn: 2,
        outcome: "Succeeded",
        result: {
          type: "tool_result",
          tool_use_id: "c3",
          content: "recipes/gazpacho.txt\nrecipes/tortilla.txt",
          is_error: false
        }
      },
      {
        type: "call.answered",
        turn: 2,
        outcome: "Refused",
        result: {
          type: "tool_result",
          tool_use_id: "c4",
          content: "not executed: the permission check refused append on list.txt",
          is_error: true
        }
      },
      { type: "model.requested", turn: 3, messages: 6 },
      {
        type: "model.replied",
        turn: 3,
        reply: [
          { type: "tool_use", id: "c5", name: "append", input: { path: "list.txt", text: ", bread" } },
          { type: "tool_use", id: "c6", name: "read", input: { path: "list.txt" } }
        ]
      },
      Trace.observation(3, {
        _tag: "Failed",
        id: "c5",
        name: "append",
        failure: { _tag: "OutcomeUnknown" },
        content: MessageCatalog.english.outcomeUnknown
      }),
      Trace.observation(3, {
        _tag: "Replayed",
        id: "c6",
        name: "read",
        original: "Succeeded",
        isError: false,
        content: "bread, milk, eggs"
      })
    ]),
    JSON.stringify({ type: "usage", turn: 3, input_tokens: 1200, output_tokens: 85 }),
    JSON.stringify({ type: "retry", turn: 3, attempt: 1, reason: "overloaded" }),
    ...lines([
      { type: "model.requested", turn: 4, messages: 8 },
      {
        type: "model.replied",
        turn: 4,
        reply: [{ type: "text", text: "There is no salmorejo recipe; list.txt is unchanged." }]
      },
      { type: "run.ended", stop: "end", text: "There is no salmorejo recipe; list.txt is unchanged.", turns: 4 }
    ])
  ].join("\n")

/**
 * A trace with problems: a line that is not JSON (line 4), an observation without its outcome
 * (line 6, `outcome`), a reply whose second block has no id (line 7, `reply[1].id`), a call
 * never answered, no stop.
 */
export const broken = (): string =>
  [
    Trace.line({ type: "run.started", messages: [{ role: "user", content: "hi" }], max_turns: 3, tools: ["read"] }),
    Trace.line({ type: "model.requested", turn: 1, messages: 1 }),
    Trace.line({
      type: "model.replied",
      turn: 1,
      reply: [{ type: "tool_use", id: "a1", name: "read", input: { path: "x" } }]
    }),
    '{"type":"observation","turn":1,',
    Trace.line({
      type: "call.answered",
      turn: 1,
      outcome: "Succeeded",
      result: { type: "tool_result", tool_use_id: "a1", content: "x says hi", is_error: false }
    }),
    JSON.stringify({
      type: "call.answered",
      turn: 2,
      result: { type: "tool_result", tool_use_id: "a2", content: "?", is_error: false }
    }),
    JSON.stringify({
      type: "model.replied",
      turn: 2,
      reply: [
        { type: "text", text: "Reading two more." },
        { type: "tool_use", name: "read", input: { path: "y" } },
        { type: "tool_use", id: "a3", name: "read", input: { path: "z" } }
      ]
    })
  ].join("\n")

/** A conversation of `turns` turns, one call each, every seventh failing: `5 × turns + 2` events. */
export const long = (turns: number): string => {
  const out: Array<string> = [
    Trace.line({
      type: "run.started",
      messages: [{ role: "user", content: "Go." }],
      max_turns: turns + 1,
      tools: ["read"]
    })
  ]
  for (let turn = 1; turn <= turns; turn++) {
    const id = `c${turn}`
    const failing = turn % 7 === 0
    const input = { path: `notes/${turn}.txt` }
    out.push(
      Trace.line({ type: "model.requested", turn, messages: 2 * turn - 1 }),
      Trace.line({
        type: "model.replied",
        turn,
        reply: [
          { type: "text", text: `Turn ${turn}: reading notes/${turn}.txt.` },
          { type: "tool_use", id, name: "read", input }
        ]
      }),
      Trace.line({ type: "call.started", turn, tool_use_id: id, name: "read", input }),
      Trace.line({
        type: "call.answered",
        turn,
        outcome: failing ? "Failed" : "Succeeded",
        result: {
          type: "tool_result",
          tool_use_id: id,
          content: failing ? `file 'notes/${turn}.txt' does not exist` : `note ${turn}`,
          is_error: failing
        }
      })
    )
  }
  out.push(Trace.line({ type: "run.ended", stop: "turn_cap", turns }))
  return out.join("\n")
}

class Missing extends Data.TaggedError("Missing")<{ readonly message: string }> {}

/** In-memory `read` and `write` tools; reading a missing file fails. */
const fileTools = (files: Map<string, string>) =>
  Toolset.make(
    Tool.make("read", {
      description: "Reads a file",
      parameters: Schema.Struct({ path: Schema.String }),
      run: ({ path }) =>
        Effect.suspend(() => {
          const text = files.get(path)
          return text === undefined
            ? Effect.fail(new Missing({ message: `file '${path}' does not exist` }))
            : Effect.succeed(text)
        })
    }),
    Tool.make("write", {
      description: "Writes a file",
      parameters: Schema.Struct({ path: Schema.String, text: Schema.String }),
      run: ({ path, text }) =>
        Effect.sync(() => {
          files.set(path, text)
          return `wrote ${path}`
        })
    })
  )

const step = (id: number, tool: string, args: Readonly<Record<string, unknown>>, expected: string) =>
  Step.make(id, tool, args, expected)

/** The rules of the sample session: a plan, a replan on a missing file, a replan on a schema error. */
export const sessionRules: ReadonlyArray<RulePlanner.Rule> = [
  {
    when: null,
    plan: [
      step(1, "read", { path: "recipes/gazpacho.txt" }, "the gazpacho recipe"),
      step(2, "read", { path: "recipes/salmorejo.txt" }, "the salmorejo recipe"),
      step(3, "write", { path: "list.txt", text: "bread" }, "the list updated")
    ]
  },
  {
    when: "does not exist",
    plan: [
      step(1, "read", { path: "recipes/gazpacho.txt" }, "the gazpacho recipe"),
      step(2, "read", { path: "recipes/gazpacho.txt" }, "the closest recipe"),
      step(4, "write", { path: "list.txt", txt: "tomatoes" }, "the list updated"),
      step(5, "read", { path: "list.txt" }, "the list checked")
    ]
  },
  {
    when: "missing field",
    plan: [
      step(4, "write", { path: "list.txt", text: "tomatoes" }, "the list updated"),
      step(5, "read", { path: "list.txt" }, "the list checked")
    ]
  }
]

/** Runs a session of rule-planned steps over in-memory files: its result. */
export const runSession = (
  rules: ReadonlyArray<RulePlanner.Rule> = sessionRules,
  budgets: { readonly maxSteps: number; readonly maxReplans: number } = { maxSteps: 10, maxReplans: 2 },
  onFailure: Session.Strategy = "replan"
): Promise<SessionResult.SessionResult> =>
  Effect.runPromise(
    Session.run({
      goal: "add what salmorejo needs to list.txt",
      planner: RulePlanner.make(rules),
      toolset: fileTools(
        new Map([
          ["recipes/gazpacho.txt", "tomatoes, cucumber, bread"],
          ["list.txt", "milk"]
        ])
      ),
      onFailure,
      ...budgets
    })
  )

/** A session's trace as `harness run PLAN.json --trace` would write it. */
export const sessionTrace = (
  result: SessionResult.SessionResult,
  budgets: { readonly maxSteps: number; readonly maxReplans: number } = { maxSteps: 10, maxReplans: 2 },
  withResult = true
): string =>
  [
    SessionTrace.startLine({
      goal: "add what salmorejo needs to list.txt",
      max_steps: budgets.maxSteps,
      max_replans: budgets.maxReplans,
      on_failure: "replan"
    }),
    ...result.events.map(SessionTrace.eventLine),
    ...(withResult ? [SessionTrace.resultLine(result)] : [])
  ].join("\n")

const conversation = (
  name: string,
  file: string,
  passed: boolean,
  variant: string,
  reserved = false
): Verdict.Verdict => ({
  name,
  file,
  kind: "conversation",
  variant,
  passed,
  reserved,
  outcome: { stop: passed ? "end" : "diverged", turns: 2 },
  failures: passed
    ? []
    : [
        {
          kind: "divergence",
          turn: 1,
          tool_use_id: "c1",
          expected: 'c1 is_error=true "TIMEOUT"',
          seen: 'c1 is_error=false "timed out"',
          message:
            'turn 1, tool_use_id c1: a different observation\n  expected: c1 is_error=true "TIMEOUT"\n  seen:     c1 is_error=false "timed out"'
        }
      ]
})

const cases = (variant: string, fixed: boolean): Verdict.Verdict => ({
  name: "catalogue.search: response contract",
  file: "scenarios/regress/catalogue.json",
  kind: "response-cases",
  variant,
  passed: fixed,
  reserved: false,
  outcome: {
    cases: [
      {
        id: "reg-001",
        role: "regression",
        purpose: "the timeout of the trace",
        passed: fixed,
        expected: { ok: false },
        seen: fixed ? { ok: false } : { ok: true }
      },
      {
        id: "ctl-001",
        role: "control",
        purpose: "an empty answer is valid",
        passed: true,
        expected: { ok: true },
        seen: { ok: true }
      },
      {
        id: "res-001",
        role: "reserved",
        purpose: "another failure status",
        passed: fixed,
        expected: { ok: false },
        seen: fixed ? { ok: false } : { ok: true }
      }
    ]
  },
  failures: fixed
    ? []
    : [{ kind: "case", case_id: "reg-001", expected: "{}", seen: "{}", message: "case reg-001 differs" }]
})

/** `harness test --json` under a variant: `before` fails the regression; one file is invalid. */
export const report = (variant: "before" | "fixed"): string =>
  [
    Report.json(conversation("salmorejo (en)", "scenarios/en/salmorejo.json", true, variant)),
    Report.json(
      conversation(
        "catalogue: a TIMEOUT reaches the model as an error",
        "scenarios/regress/timeout.json",
        variant === "fixed",
        variant
      )
    ),
    Report.json(cases(variant, variant === "fixed")),
    Report.json(
      conversation("held out: unavailable", "scenarios/held/unavailable.json", variant === "fixed", variant, true)
    ),
    Report.json({
      name: "plan: replan once",
      file: "scenarios/plan/replan-once.json",
      kind: "plan",
      variant,
      passed: true,
      reserved: false,
      outcome: {
        status: "completed",
        reason: "goal_met",
        executed: [1, 2, 2],
        revisions: [{ removed: [], added: [], revised: [2] }],
        steps: 3,
        replans: 1,
        files: {}
      },
      failures: []
    }),
    Report.invalidJson(
      new ScenarioFile.InvalidScenario({
        file: "scenarios/broken.json",
        path: "turns[0].reply",
        problem: "expected an array"
      }),
      variant
    )
  ].join("\n")

/**
 * Link targets a browser reads as a scheme other than http(s) or mailto (`javascript:`,
 * `vbscript:`, `data:`, `file:`...): every spelling URL parsing folds into one (tab, newline and
 * carriage return anywhere, C0 controls and spaces at the ends, upper case).
 */
export const hostileHrefs: ReadonlyArray<string> = [
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "JAVASCRIPT:alert(1)",
  "java\tscript:alert(1)",
  "java\nscript:alert(1)",
  "java\rscript:alert(1)",
  "\tjavascript:alert(1)",
  " javascript:alert(1)",
  "   javascript:alert(1)",
  "\u0000javascript:alert(1)",
  "\u0001\u001fjavascript:alert(1)",
  "\u0000 \t\njavascript:alert(1)",
  "javascript:alert(1)\u0000",
  "j\na\tv\ra\tscript\t:alert(1)",
  "javascript\t:alert(1)",
  "vbscript:msgbox(1)",
  "VBScript:msgbox(1)",
  " vbscript:msgbox(1)",
  "data:text/html,<script>alert(1)</script>",
  "DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  "\u0000data:text/html,x",
  "file:///etc/passwd",
  "FILE:///etc/passwd",
  " file:///etc/passwd",
  "blob:https://ci.example/1",
  "about:blank",
  "chrome://settings",
  "view-source:https://ci.example/",
  "ws://127.0.0.1:1/",
  "ftp://ci.example/a"
]

/**
 * Spellings that look like a script link but are no scheme at all once set as an attribute (the
 * page never parses HTML: entities stay as they are; a NUL inside the scheme ends it): relative
 * paths, which the filter may let through.
 */
export const inertHrefs: ReadonlyArray<string> = [
  "javascript&colon;alert(1)",
  "&#106;avascript:alert(1)",
  "&#x6A;avascript:alert(1)",
  "java&#09;script:alert(1)",
  "java\u0000script:alert(1)",
  "%6Aavascript:alert(1)",
  "java%09script:alert(1)"
]

/**
 * A conversation with two commands (the `command` tool's structured reports): one that exits 3
 * with both streams, one whose stdout was cut and whose stderr was binary.
 */
export const commands = (): string => {
  const report = (fields: Record<string, unknown>) => ({
    exit_code: 0,
    signal: null,
    timed_out: false,
    stdout: "",
    stderr: "",
    stdout_bytes: 0,
    stderr_bytes: 0,
    stdout_truncated: false,
    stderr_truncated: false,
    stdout_binary: false,
    stderr_binary: false,
    binary: false,
    ...fields
  })
  return lines([
    { type: "run.started", messages: [{ role: "user", content: "build it" }], max_turns: 5, tools: ["command"] },
    { type: "model.requested", turn: 1, messages: 1 },
    {
      type: "model.replied",
      turn: 1,
      reply: [
        { type: "tool_use", id: "k1", name: "command", input: { program: "make", args: [] } },
        { type: "tool_use", id: "k2", name: "command", input: { program: "cat", args: ["big.bin"] } }
      ]
    },
    { type: "call.started", turn: 1, tool_use_id: "k1", name: "command", input: { program: "make", args: [] } },
    {
      type: "call.answered",
      turn: 1,
      outcome: "Failed",
      failure: "ToolError",
      result: {
        type: "tool_result",
        tool_use_id: "k1",
        content: "exit code 3\nstdout:\ncc main.c\nstderr:\nmain.c:1: error",
        is_error: true,
        structured: report({
          exit_code: 3,
          stdout: "cc main.c\n",
          stderr: "main.c:1: error\n",
          stdout_bytes: 10,
          stderr_bytes: 16
        })
      }
    },
    { type: "call.started", turn: 1, tool_use_id: "k2", name: "command", input: { program: "cat", args: ["big.bin"] } },
    {
      type: "call.answered",
      turn: 1,
      outcome: "Succeeded",
      result: {
        type: "tool_result",
        tool_use_id: "k2",
        content:
          "exit code 0\nstdout:\nabc\n… 49,997 more bytes not shown\nstderr: (binary output, 8 bytes, not shown)",
        is_error: false,
        structured: report({
          stdout: "abc",
          stdout_bytes: 50_000,
          stdout_truncated: true,
          stderr_bytes: 8,
          stderr_binary: true,
          binary: true
        })
      }
    },
    { type: "model.requested", turn: 2, messages: 3 },
    { type: "model.replied", turn: 2, reply: [{ type: "text", text: "It does not build." }] },
    { type: "run.ended", stop: "end", text: "It does not build.", turns: 2 }
  ] as ReadonlyArray<Trace.Event>).join("\n")
}
