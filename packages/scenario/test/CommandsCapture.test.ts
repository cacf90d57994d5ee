/**
 * Capturing a run that had commands (the trace's `commands` annotation, as a scenario with
 * `commands` and `harness agent --commands` record it): the scenario gets `commands` in the
 * file's spelling (`timeout_ms`, from the annotation's `timeoutMs`, or `timeout_ms`) and runs over
 * a root folder that holds the run's first files (`Capture.rooted`, `Capture.checkedRooted`),
 * since commands never replay over inline files (`Capture.checked` refuses, naming the line); a
 * bad annotation is refused at its line and path; a live trial with commands keeps its root.
 * The hosts are fakes here (the scenario package imports no command package).
 */
import { Trace } from "@agent-harness/executor"
import { Files } from "@agent-harness/file-tools"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { Capture, Commands, Conversation, Roots, ScenarioFile } from "../src/index.ts"
import { decodeConversation, type Json } from "./fixtures/files.ts"
import { decodeLive, LIVE_FILE, liveJson } from "./fixtures/live.ts"

const FILE = "cases/commands.json"

const conversation: Json = {
  format: 1,
  kind: "conversation",
  user: "Say hi.",
  root: "project",
  commands: { env: { LC_ALL: "C" }, timeout_ms: 5000 },
  turns: [
    {
      reply: [{ type: "tool_use", id: "c1", name: "command", input: { program: "echo", args: ["hi"] } }],
      expect: [{ type: "tool_result", tool_use_id: "c1", is_error: false, content: "ran: echo hi" }]
    },
    { reply: [{ type: "text", text: "done" }] }
  ],
  outcome: { stop: "end", text: "done" }
}

/** The fake host: `command` answers `ran: …`, the settings as the real one fills them in. */
const fake = () => {
  const made: Array<{ readonly declared: Commands.Declared; readonly root: string }> = []
  const commands = Commands.Commands.of({
    check: () => Effect.void,
    tools: (declared, root) =>
      Effect.sync(() => {
        made.push({ declared, root })
        return {
          toolset: Toolset.make(
            Tool.make("command", {
              description: "runs a program",
              parameters: Schema.Struct({
                program: Schema.String,
                args: Schema.optionalKey(Schema.Array(Schema.String))
              }),
              run: ({ program, args }) => Effect.succeed(`ran: ${[program, ...(args ?? [])].join(" ")}`)
            })
          ),
          settings: {
            shell: declared.shell ?? false,
            network: declared.network ?? false,
            env: { PATH: "/usr/bin:/bin", HOME: "/tmp", ...declared.env },
            timeoutMs: declared.timeoutMs ?? 60_000,
            memoryBytes: declared.memoryBytes ?? 4 * 1024 ** 3
          }
        }
      })
  })
  const opened: Array<readonly [string, string]> = []
  const roots = Roots.Roots.of({
    check: () => Effect.void,
    open: (root, file) =>
      Effect.sync((): Roots.Opened => {
        opened.push([root, file])
        return { ...Files.makeFiles({ "notes.txt": "hello" }), folder: "/copies/x" }
      })
  })
  return { commands, roots, made, opened }
}

type Hosts = ReturnType<typeof fake>

const withHosts =
  (hosts: Hosts) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provideService(Commands.Commands, hosts.commands),
      Effect.provideService(Roots.Roots, hosts.roots)
    )

/** A run of the conversation, traced: its trace's lines as objects. */
const recorded = (hosts: Hosts) =>
  Effect.gen(function* () {
    const memory = yield* Trace.memory
    yield* Conversation.run(decodeConversation(FILE, conversation), FILE).pipe(
      Effect.provideService(Trace.Trace, memory.trace),
      withHosts(hosts)
    )
    return (yield* memory.events).map((event) => JSON.parse(Trace.line(event)) as Json)
  })

const textOf = (events: ReadonlyArray<Json>): string => events.map((e) => JSON.stringify(e)).join("\n")

/** The line (from 1) of the commands annotation. */
const commandsLine = (events: ReadonlyArray<Json>): number =>
  events.findIndex((e) => e.type === "trace.annotated" && e.key === "commands") + 1

describe("capture of a run with commands", () => {
  it.effect("over inline files it is refused at the commands annotation's line: commands need a real folder", () =>
    Effect.gen(function* () {
      const events = yield* recorded(fake())
      const line = commandsLine(events)
      assert.isAbove(line, 0)
      const refused = Capture.capture("t.jsonl", textOf(events))
      assert.isTrue(Result.isFailure(refused))
      if (Result.isFailure(refused)) {
        assert.strictEqual(refused.failure.path, `line ${line}: value`)
        assert.match(refused.failure.problem, /^the run had commands, which replay only over a real folder/)
      }
      const checked = yield* Effect.flip(Capture.checked("t.jsonl", textOf(events)))
      assert.strictEqual(checked.path, `line ${line}: value`)
    })
  )

  it.effect("rooted: commands in the file's spelling, a root instead of files, the run's first files; it replays", () =>
    Effect.gen(function* () {
      const hosts = fake()
      const events = yield* recorded(hosts)
      const rooted = Capture.rooted("t.jsonl", textOf(events), "captured.root")
      assert.isTrue(Result.isSuccess(rooted))
      if (Result.isFailure(rooted)) return
      const { scenario, files } = rooted.success
      assert.strictEqual(scenario.root, "captured.root")
      assert.isUndefined(scenario.files)
      assert.deepStrictEqual(scenario.commands, {
        shell: false,
        network: false,
        env: { PATH: "/usr/bin:/bin", HOME: "/tmp", LC_ALL: "C" },
        timeout_ms: 5000,
        memory_bytes: 4 * 1024 ** 3
      })
      assert.deepStrictEqual(files, { "notes.txt": "hello" })
      // The scenario decodes as a file with commands, and replays from where its root is written.
      const parsed = ScenarioFile.parse("out/captured.json", JSON.stringify(scenario))
      assert.isTrue(Result.isSuccess(parsed))
      const checked = yield* Capture.checkedRooted("t.jsonl", textOf(events), {
        root: "captured.root",
        scenario: "tmp/twin/captured.json"
      }).pipe(withHosts(hosts))
      assert.deepStrictEqual(checked, rooted.success)
      assert.deepStrictEqual(hosts.opened.at(-1), ["captured.root", "tmp/twin/captured.json"])
      assert.deepStrictEqual(hosts.made.at(-1), {
        declared: {
          shell: false,
          network: false,
          env: { PATH: "/usr/bin:/bin", HOME: "/tmp", LC_ALL: "C" },
          timeoutMs: 5000,
          memoryBytes: 4 * 1024 ** 3
        },
        root: "/copies/x"
      })
    })
  )

  it.effect(
    "the annotation as traces before 0.2 wrote it (timeoutMs) and as it is written now, the file's spelling (timeout_ms), both read",
    () =>
      Effect.gen(function* () {
        const events = yield* recorded(fake())
        const line = commandsLine(events)
        const respelt = events.map((e, i) =>
          i + 1 === line ? { ...e, value: { shell: true, network: true, env: {}, timeout_ms: 9 } } : e
        )
        const rooted = Capture.rooted("t.jsonl", textOf(respelt), "r")
        assert.deepStrictEqual(Result.isSuccess(rooted) ? rooted.success.scenario.commands : undefined, {
          shell: true,
          network: true,
          env: {},
          timeout_ms: 9
        })
      })
  )

  it.effect("a bad annotation is refused at its line and path", () =>
    Effect.gen(function* () {
      const events = yield* recorded(fake())
      const line = commandsLine(events)
      const problemWith = (value: unknown): string => {
        const edited = events.map((e, i) => (i + 1 === line ? { ...e, value } : e))
        const result = Capture.rooted("t.jsonl", textOf(edited), "r")
        return Result.isFailure(result) ? `${result.failure.path}: ${result.failure.problem}` : "captured"
      }
      assert.strictEqual(
        problemWith("yes"),
        `line ${line}: value: commands must be an object { shell, network, env, timeoutMs }, got "yes"`
      )
      assert.strictEqual(
        problemWith({ timeoutMs: 0 }),
        `line ${line}: value.timeoutMs: expected a value greater than or equal to 1, got 0`
      )
      assert.strictEqual(
        problemWith({ env: { "MY-KEY": "x" } }),
        `line ${line}: value.env["MY-KEY"]: "MY-KEY" is not a variable name: letters, digits and _, not starting with a digit`
      )
      assert.strictEqual(problemWith({ maxProcesses: 3 }), `line ${line}: value.maxProcesses: unexpected field`)
    })
  )

  it("a live trial with commands keeps its root; written where the root is not next to it, it is refused", () => {
    const { files: _files, ...withoutFiles } = liveJson()
    const live = decodeLive(
      { ...withoutFiles, user: "Say hi.", root: "project", commands: { shell: true } },
      "cases/live.json"
    )
    const trace = [
      { type: "trace.annotated", key: "variant", value: "fixed" },
      { type: "trace.annotated", key: "locale", value: "en" },
      { type: "trace.annotated", key: "files", value: { "notes.txt": "hello" } },
      { type: "trace.annotated", key: "commands", value: { shell: true, network: false, env: {}, timeoutMs: 60000 } },
      { type: "run.started", messages: [{ role: "user", content: "Say hi." }], max_turns: 10, tools: ["command"] },
      { type: "model.replied", turn: 1, reply: [{ type: "text", text: "done" }] },
      { type: "trace.annotated", key: "files.final", value: { "notes.txt": "hello" } },
      { type: "run.ended", stop: "end", text: "done", turns: 1 }
    ]
    const text = trace.map((e) => JSON.stringify(e)).join("\n")
    const kept = Capture.trial(live, LIVE_FILE, text, { out: "cases/t1.json" })
    assert.isTrue(Result.isSuccess(kept), Result.isFailure(kept) ? kept.failure.message : "")
    if (Result.isSuccess(kept)) {
      assert.strictEqual(kept.success.root, "project")
      assert.deepStrictEqual(kept.success.commands, { shell: true })
      assert.isUndefined(kept.success.files)
    }
    const away = Capture.trial(live, LIVE_FILE, text, { out: "cases/captured/t1.json" })
    assert.isTrue(Result.isFailure(away))
    if (Result.isFailure(away))
      assert.match(away.failure.problem, /^the live case declares commands, which replay only over its root folder/)
  })
})
