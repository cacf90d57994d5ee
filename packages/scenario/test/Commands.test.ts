/**
 * Conversation scenarios (and live cases) that declare the sandboxed command tool, `commands`:
 * decoding (the file's snake_case keys, every refusal at its JSON path, hostile variables, only
 * over a `root`, old files still read), `Suite.load` refusing such a file without a `Commands`
 * service or when the service says no sandbox can run here, and the run with a fake host (the
 * scenario package never imports the command package): the tools in their place among the
 * others, made over the real folder of the root's copy, the settings on the trace, and each way
 * the tools cannot be made failing the verdict with nothing run. The real host, over bubblewrap,
 * is tested in packages/command (Scenario.test.ts) and through the CLI.
 */
import { Message, Model, Trace } from "@agent-harness/executor"
import { Files } from "@agent-harness/file-tools"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { Commands, Conversation, LiveCase, Mounter, Roots, type ScenarioFile, Suite } from "../src/index.ts"
import { decodeConversation, type Json, load, oneFileDisk, problemOf, shipped } from "./fixtures/files.ts"
import { decodeLive, handModel, LIVE_FILE, liveJson } from "./fixtures/live.ts"
import { fakeMounter } from "./fixtures/mounter.ts"

const FILE = "cases/commands.json"

/** A conversation over `project` that runs `echo hi` with the command tool, then ends. */
const conversation = (extra: Json = {}): Json => ({
  format: 1,
  kind: "conversation",
  root: "project",
  commands: { shell: true, env: { LC_ALL: "C" }, timeout_ms: 5000 },
  turns: [
    {
      reply: [{ type: "tool_use", id: "c1", name: "command", input: { program: "echo", args: ["hi"] } }],
      expect: [{ type: "tool_result", tool_use_id: "c1", is_error: false, content: "ran: echo hi" }]
    },
    { reply: [{ type: "text", text: "done" }] }
  ],
  outcome: { stop: "end", text: "done" },
  ...extra
})

const decode = (json: Json): ScenarioFile.Conversation => decodeConversation(FILE, json)
const invalid = (json: Json): string => problemOf(FILE, json)
const withCommands = (commands: unknown): string => invalid(conversation({ commands }))

class Refused extends Schema.TaggedError<Refused>()("Refused", { message: Schema.String }) {}

/** The fake command tools: `command` answers `ran: <program> <args>`, `shell` the line; `exit 1` fails. */
const fakeTools = (): Toolset.Toolset<Tool.Any> =>
  Toolset.make(
    Tool.make("command", {
      description: "runs a program",
      parameters: Schema.Struct({ program: Schema.String, args: Schema.optionalKey(Schema.Array(Schema.String)) }),
      failureMessage: (e: Refused) => e.message,
      run: ({ program, args }) =>
        program === "false"
          ? Effect.fail(new Refused({ message: "exit code 1" }))
          : Effect.succeed(`ran: ${[program, ...(args ?? [])].join(" ")}`)
    }),
    Tool.make("shell", {
      description: "runs a line",
      parameters: Schema.Struct({ line: Schema.String }),
      run: ({ line }) => Effect.succeed(`ran: ${line}`)
    })
  )

/** A fake `Commands`: what it was asked, refusing when told to. */
const fakeCommands = (options?: { readonly refuse?: Commands.InvalidCommands; readonly failTools?: string }) => {
  const checked: Array<Commands.Declared> = []
  const made: Array<{ readonly declared: Commands.Declared; readonly root: string; readonly locale: string }> = []
  const commands = Commands.Commands.of({
    check: (declared) =>
      Effect.suspend(() => {
        checked.push(declared)
        return options?.refuse === undefined ? Effect.void : Effect.fail(options.refuse)
      }),
    tools: (declared, root, locale) =>
      Effect.suspend(() => {
        made.push({ declared, root, locale })
        if (options?.failTools !== undefined) {
          return Effect.fail(new Commands.InvalidCommands({ path: "(root)", problem: options.failTools }))
        }
        return Effect.succeed({
          toolset: fakeTools(),
          settings: {
            shell: declared.shell ?? false,
            network: declared.network ?? false,
            env: { PATH: "/usr/bin:/bin", ...declared.env },
            timeoutMs: declared.timeoutMs ?? 60_000,
            memoryBytes: declared.memoryBytes ?? 4 * 1024 ** 3
          }
        })
      })
  })
  return { commands, checked, made }
}

/** A fake `Roots` whose copies are at `/copies/<n>` (or no real folder, with `folder: false`). */
const fakeRoots = (options?: { readonly folder?: boolean }) => {
  let copies = 0
  const roots = Roots.Roots.of({
    check: () => Effect.void,
    open: () =>
      Effect.sync((): Roots.Opened => {
        const files = Files.makeFiles({ "notes.txt": "hello" })
        return options?.folder === false ? files : { ...files, folder: `/copies/${++copies}` }
      })
  })
  return { roots }
}

/** Runs a conversation with the fakes, its trace in memory: the verdict and the trace's events. */
const runWith = (
  json: Json,
  services: { readonly commands?: Commands.Shape; readonly roots?: Roots.Shape; readonly mounter?: Mounter.Shape }
) =>
  Effect.gen(function* () {
    const memory = yield* Trace.memory
    let running = Conversation.run(decode(json), FILE).pipe(Effect.provideService(Trace.Trace, memory.trace))
    if (services.commands !== undefined) running = Effect.provideService(running, Commands.Commands, services.commands)
    if (services.roots !== undefined) running = Effect.provideService(running, Roots.Roots, services.roots)
    if (services.mounter !== undefined) running = Effect.provideService(running, Mounter.Mounter, services.mounter)
    const verdict = yield* running
    return { verdict, events: yield* memory.events }
  })

const annotation = (events: ReadonlyArray<Trace.Entry>, key: string): unknown =>
  events.flatMap((e) => (e.type === "trace.annotated" && e.key === key ? [e.value] : []))[0]

describe("commands: decoding", () => {
  it("decodes the file's keys (snake_case: timeout_ms, memory_bytes), each optional; {} is the tool with the defaults", () => {
    assert.deepStrictEqual(decode(conversation()).file.commands, {
      shell: true,
      env: { LC_ALL: "C" },
      timeout_ms: 5000
    })
    assert.deepStrictEqual(decode(conversation({ commands: {} })).file.commands, {})
    assert.deepStrictEqual(decode(conversation({ commands: { network: true } })).file.commands, { network: true })
    assert.deepStrictEqual(Commands.declared({ shell: true, env: { A: "b" }, timeout_ms: 7 }), {
      shell: true,
      network: undefined,
      env: { A: "b" },
      timeoutMs: 7,
      memoryBytes: undefined
    })
    assert.deepStrictEqual(decode(conversation({ commands: { memory_bytes: 536_870_912 } })).file.commands, {
      memory_bytes: 536_870_912
    })
    assert.deepStrictEqual(Commands.declared({ memory_bytes: 536_870_912 }).memoryBytes, 536_870_912)
  })

  it("old files still read: every shipped file without commands decodes as before, with none", () => {
    const files = shipped().filter((file) => load(file).commands === undefined && !file.includes("/project/"))
    expect(files.length).toBeGreaterThan(20)
    for (const file of files) {
      const json = load(file)
      if (json.kind !== "conversation") continue
      assert.isUndefined(decodeConversation(file, json).file.commands, file)
    }
  })

  it("needs root: the commands run in a real folder (inline files or no files refused at commands)", () => {
    const { root: _root, ...withoutRoot } = conversation()
    const needsRoot = `commands: needs root: the commands run in a real folder (add "root", a folder next to this file, copied afresh for each run)`
    assert.strictEqual(invalid(withoutRoot), needsRoot)
    assert.strictEqual(invalid({ ...withoutRoot, files: { "a.txt": "x" } }), needsRoot)
  })

  it("refuses a bad value at its JSON path, camelCase keys included (a new field is snake_case)", () => {
    assert.strictEqual(withCommands(true), "commands: expected object, got true")
    assert.strictEqual(withCommands([]), "commands: expected object, got []")
    assert.strictEqual(withCommands({ timeoutMs: 5 }), "commands.timeoutMs: unexpected field")
    assert.strictEqual(withCommands({ cwd: "/" }), "commands.cwd: unexpected field")
    assert.strictEqual(withCommands({ shell: "yes" }), `commands.shell: expected boolean, got "yes"`)
    assert.strictEqual(withCommands({ network: 1 }), "commands.network: expected boolean, got 1")
    assert.strictEqual(
      withCommands({ timeout_ms: 0 }),
      "commands.timeout_ms: expected a value greater than or equal to 1, got 0"
    )
    assert.strictEqual(withCommands({ timeout_ms: 1.5 }), "commands.timeout_ms: expected an integer, got 1.5")
    assert.strictEqual(
      withCommands({ timeout_ms: 2_147_483_648 }),
      "commands.timeout_ms: expected a value less than or equal to 2147483647, got 2147483648"
    )
    assert.strictEqual(
      withCommands({ memory_bytes: 1024 }),
      "commands.memory_bytes: expected a value greater than or equal to 16777216, got 1024"
    )
    assert.strictEqual(withCommands({ memoryBytes: 1 << 30 }), "commands.memoryBytes: unexpected field")
    assert.strictEqual(withCommands({ env: [] }), "commands.env: expected object, got []")
    assert.strictEqual(withCommands({ env: { X: 1 } }), "commands.env.X: expected string, got 1")
  })

  it("hostile variables: a bad name, a NUL, a huge value, refused at the variable", () => {
    const notAName = (name: string) =>
      `commands.env[${JSON.stringify(name)}]: ${JSON.stringify(name)} is not a variable name: letters, digits and _, not starting with a digit`
    for (const name of ["MY-KEY", "1X", "", "A B", "A=B", "É"]) {
      assert.strictEqual(withCommands({ env: { [name]: "v" } }), notAName(name))
    }
    // A long name is shown cut in the problem (its path has it whole).
    expect(withCommands({ env: { ["-".repeat(1000)]: "v" } })).toContain(
      `: "${"-".repeat(80)}…" is not a variable name`
    )
    assert.strictEqual(
      withCommands({ env: { A: "a\u0000b" } }),
      "commands.env.A: a value cannot hold a NUL character (no environment can)"
    )
    assert.strictEqual(
      withCommands({ env: { SMALL: "ok", BIG: "x".repeat(1 << 20) } }),
      "commands.env.BIG: too large: the variables take 1,048,588 bytes with this one (NAME=VALUE each, UTF-8), more than the 65,536 a sandbox's environment may hold"
    )
    // At the limit it decodes; one byte more is refused (UTF-8 bytes, not characters).
    assert.isDefined(decode(conversation({ commands: { env: { V: "x".repeat(Commands.maxEnvBytes - 2) } } })))
    assert.match(withCommands({ env: { V: "é".repeat(Commands.maxEnvBytes / 2) } }), /^commands\.env\.V: too large/)
  })

  it("a live case declares commands the same way, refused at the same paths", () => {
    const { files: _files, ...withoutFiles } = liveJson()
    const live = decodeLive({ ...withoutFiles, root: "project", commands: { shell: false } })
    assert.deepStrictEqual(live.file.commands, { shell: false })
    assert.strictEqual(
      problemOf(LIVE_FILE, liveJson({ commands: {} })),
      `commands: needs root: the commands run in a real folder (add "root", a folder next to this file, copied afresh for each run)`
    )
    assert.strictEqual(
      problemOf(LIVE_FILE, { ...withoutFiles, root: "project", commands: { env: { "A-B": "x" } } }),
      `commands.env["A-B"]: "A-B" is not a variable name: letters, digits and _, not starting with a digit`
    )
  })
})

describe("commands: Suite.load", () => {
  const loadWith = (json: Json, commands?: Commands.Shape) => {
    const loading = Suite.load(FILE).pipe(
      Effect.provide(oneFileDisk(json)),
      Effect.provideService(Roots.Roots, fakeRoots().roots)
    )
    return commands === undefined ? loading : Effect.provideService(loading, Commands.Commands, commands)
  }

  it.effect("refuses a file with commands when no Commands service is provided, at commands", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(loadWith(conversation()))
      assert.strictEqual(error.path, "commands")
      assert.strictEqual(error.problem, Commands.missing)
      assert.include(error.problem, "@agent-harness/command/scenario")
    })
  )

  it.effect("asks the service whether they can run here, and refuses the file with its why and fix", () =>
    Effect.gen(function* () {
      const fine = fakeCommands()
      const scenario = yield* loadWith(conversation(), fine.commands)
      assert.strictEqual(scenario.kind, "conversation")
      assert.deepStrictEqual(fine.checked, [
        { shell: true, network: undefined, env: { LC_ALL: "C" }, timeoutMs: 5000, memoryBytes: undefined }
      ])
      const unavailable = new Commands.InvalidCommands({
        path: "(root)",
        problem: "the command sandbox is unavailable: bwrap is not installed: apt-get install bubblewrap"
      })
      const error = yield* Effect.flip(loadWith(conversation(), fakeCommands({ refuse: unavailable }).commands))
      assert.strictEqual(
        error.message,
        `${FILE}: commands: the command sandbox is unavailable: bwrap is not installed: apt-get install bubblewrap`
      )
      const option = new Commands.InvalidCommands({ path: "timeout_ms", problem: "is too long here" })
      const refused = yield* Effect.flip(loadWith(conversation(), fakeCommands({ refuse: option }).commands))
      assert.strictEqual(refused.path, "commands.timeout_ms")
    })
  )

  it.effect("a file without commands never asks for the service", () =>
    Effect.gen(function* () {
      const { commands: _commands, ...plain } = conversation()
      const scenario = yield* loadWith({ ...plain, turns: [{ reply: [{ type: "text", text: "done" }] }] })
      assert.strictEqual(scenario.kind, "conversation")
    })
  )
})

describe("commands: running with a host", () => {
  it.effect("the tools join after the file tools and scripted tools, before MCP; made over the copy's folder", () =>
    Effect.gen(function* () {
      const fake = fakeCommands()
      const mounter = fakeMounter()
      const json = conversation({
        tools: { lookup: { results: [{ ok: "found" }] } },
        mcp: [{ prefix: "calc", command: "node" }]
      })
      const { verdict, events } = yield* runWith(json, {
        commands: fake.commands,
        roots: fakeRoots().roots,
        mounter: mounter.mounter
      })
      assert.deepStrictEqual(verdict.failures, [])
      assert.isTrue(verdict.passed)
      assert.deepStrictEqual(fake.made, [
        {
          declared: { shell: true, network: undefined, env: { LC_ALL: "C" }, timeoutMs: 5000, memoryBytes: undefined },
          root: "/copies/1",
          locale: "en"
        }
      ])
      const started = events.find((e) => e.type === "run.started")
      assert.deepStrictEqual(started?.type === "run.started" ? started.tools : [], [
        "read",
        "list",
        "search",
        "write",
        "append",
        "lookup",
        "command",
        "shell",
        "calc__echo",
        "calc__fail"
      ])
      // What the commands ran with, as the trace records it, on the wire's spelling
      // (`harness agent --commands` records the same).
      assert.deepStrictEqual(annotation(events, Conversation.annotations.commands), {
        shell: true,
        network: false,
        env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
        timeout_ms: 5000,
        memory_bytes: 4 * 1024 ** 3
      })
    })
  )

  it.effect("each run gets fresh tools over its own copy, in the file's locale", () =>
    Effect.gen(function* () {
      const fake = fakeCommands()
      const roots = fakeRoots().roots
      const json = conversation({ locale: "es" })
      yield* runWith(json, { commands: fake.commands, roots })
      yield* runWith(json, { commands: fake.commands, roots })
      assert.deepStrictEqual(
        fake.made.map((m) => [m.root, m.locale]),
        [
          ["/copies/1", "es"],
          ["/copies/2", "es"]
        ]
      )
    })
  )

  it.effect("a failing command is an error observation, as the script expects", () =>
    Effect.gen(function* () {
      const json = conversation({
        turns: [
          {
            reply: [{ type: "tool_use", id: "c1", name: "command", input: { program: "false" } }],
            expect: [{ type: "tool_result", tool_use_id: "c1", is_error: true, content: "exit code 1" }]
          },
          { reply: [{ type: "text", text: "done" }] }
        ]
      })
      const { verdict } = yield* runWith(json, { commands: fakeCommands().commands, roots: fakeRoots().roots })
      assert.deepStrictEqual(verdict.failures, [])
    })
  )

  it.effect("without a Commands service nothing runs: a commands failure naming the entry to provide", () =>
    Effect.gen(function* () {
      const { verdict } = yield* runWith(conversation(), { roots: fakeRoots().roots })
      assert.isFalse(verdict.passed)
      assert.deepStrictEqual(
        verdict.failures.map((f) => [f.kind, f.message]),
        [["commands", `commands: ${Commands.missing}`]]
      )
      assert.strictEqual(verdict.outcome.stop, "diverged")
      assert.strictEqual(verdict.outcome.turns, 0)
    })
  )

  it.effect("a host that cannot make the tools, a copy that is no real folder: nothing runs, said why", () =>
    Effect.gen(function* () {
      const failing = fakeCommands({
        failTools: "the command sandbox is unavailable: bwrap is not installed: apt-get install bubblewrap"
      })
      const a = yield* runWith(conversation(), { commands: failing.commands, roots: fakeRoots().roots })
      assert.deepStrictEqual(
        a.verdict.failures.map((f) => [f.kind, f.message]),
        [
          [
            "commands",
            "commands: the command sandbox is unavailable: bwrap is not installed: apt-get install bubblewrap"
          ]
        ]
      )
      const b = yield* runWith(conversation(), {
        commands: fakeCommands().commands,
        roots: fakeRoots({ folder: false }).roots
      })
      assert.strictEqual(b.verdict.failures[0]?.kind, "commands")
      assert.match(b.verdict.failures[0]?.message ?? "", /^commands: the root folder's copy is not a real folder here/)
      assert.strictEqual(b.verdict.outcome.turns, 0)
    })
  )

  it.effect("a scripted tool with a command tool's name is refused when the tools are made", () =>
    Effect.gen(function* () {
      const json = conversation({ tools: { shell: { results: [{ ok: "scripted" }] } } })
      const { verdict } = yield* runWith(json, { commands: fakeCommands().commands, roots: fakeRoots().roots })
      assert.deepStrictEqual(
        verdict.failures.map((f) => [f.kind, f.message]),
        [
          [
            "commands",
            "commands: the command tool 'shell' has the name of the scripted tool tools.shell: rename the scripted tool"
          ]
        ]
      )
    })
  )

  it.effect("a live trial gets the tools the same way; without a host it is not run (kind commands)", () =>
    Effect.gen(function* () {
      const { files: _files, ...withoutFiles } = liveJson()
      const live = decodeLive({ ...withoutFiles, root: "project", commands: {} })
      const { model } = handModel([[Message.toolUse("t1", "command", { program: "ls" })], [Message.text("done")]])
      const fake = fakeCommands()
      const trial = yield* LiveCase.trial(live, LIVE_FILE).pipe(
        Effect.provide(Model.layer(model)),
        Effect.provideService(Commands.Commands, fake.commands),
        Effect.provideService(Roots.Roots, fakeRoots().roots)
      )
      assert.isTrue(trial.verdict.passed)
      assert.strictEqual(fake.made[0]?.root, "/copies/1")
      const without = yield* LiveCase.trial(live, LIVE_FILE).pipe(
        Effect.provide(Model.layer(model)),
        Effect.provideService(Roots.Roots, fakeRoots().roots)
      )
      assert.isTrue(Result.isFailure(without.result))
      if (Result.isFailure(without.result)) assert.strictEqual(without.result.failure._tag, "NotRun")
    })
  )
})
