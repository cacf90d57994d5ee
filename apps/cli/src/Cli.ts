/**
 * The `harness` command line: walkthroughs of the ideas, and run/test of scenario files.
 * Runtime-agnostic: `main.ts` provides the platform (Node or Deno through node: modules).
 *
 * @since 0.1.0
 */
import { Console, Effect, Option } from "effect"
import { Argument, Command, type CliError, Flag } from "effect/cli"
import { Variant } from "@agent-harness/scenario"
import { lazy } from "./common/Lazy.ts"
import { traced } from "./common/Telemetry.ts"
import * as Version from "./common/Version.ts"
import type * as Engine from "./engine/Engine.ts"
import { type ExitCode, type Interrupted, invalid as invalidExit } from "./common/ExitCode.ts"

const json = Flag.Boolean("json").pipe(
  Flag.withDefault(false),
  Flag.withDescription("print one JSON object per scenario")
)

const variant = Flag.Literals("variant", Variant.names).pipe(
  Flag.withDefault("fixed"),
  Flag.withDescription("the harness variant: fixed (the tool-response contract) or before (the old parser's bug)")
)

const engine = Flag.Literals("engine", ["local", "postgres"]).pipe(
  Flag.withDefault("local"),
  Flag.withDescription(
    "where sessions run: local (this process) or postgres (effect/workflow on effect/cluster, every call an activity, state in Postgres)"
  )
)

const databaseUrl = Flag.String("database-url").pipe(
  Flag.optional,
  Flag.withDescription("the Postgres database of --engine postgres (default: $DATABASE_URL)")
)

/**
 * What `run` and `test` share: the report's form, the variant, and the engine `--engine` and
 * `--database-url` choose (once, for both: `engine/Engine.ts`).
 */
const scenarioOptions = (flags: {
  readonly json: boolean
  readonly variant: Variant.Name
  readonly engine: "local" | "postgres"
  readonly databaseUrl: Option.Option<string>
}): { readonly json: boolean; readonly variant: Variant.Variant; readonly engine: Engine.Choice } => ({
  json: flags.json,
  variant: Variant.byName[flags.variant],
  engine: { engine: flags.engine, databaseUrl: Option.getOrUndefined(flags.databaseUrl) }
})

const run = Command.make(
  "run",
  {
    file: Argument.String("file").pipe(Argument.withDescription("a scenario file")),
    json,
    variant,
    trace: Flag.String("trace").pipe(
      Flag.optional,
      Flag.withDescription(
        "record the run as JSON Lines in this file: a conversation (for harness capture and harness view) or a plan session (for harness view)"
      )
    ),
    engine,
    databaseUrl
  },
  (flags) =>
    traced(
      "run",
      lazy(
        () => import("./commands/Run.ts"),
        (m) => m.run({ ...scenarioOptions(flags), file: flags.file, trace: Option.getOrUndefined(flags.trace) })
      )
    )
).pipe(Command.withDescription("Run one scenario file: exit 0 pass, 1 fail, 2 invalid file"))

const capture = Command.make(
  "capture",
  {
    trace: Argument.String("trace").pipe(Argument.withDescription("a JSON Lines trace from harness run --trace")),
    out: Flag.String("out").pipe(Flag.optional, Flag.withDescription("write the scenario here instead of stdout"))
  },
  ({ trace, out }) =>
    lazy(
      () => import("./commands/Capture.ts"),
      (m) => m.capture({ trace, out: Option.getOrUndefined(out) })
    )
).pipe(Command.withDescription("Turn a recorded conversation trace into a scenario that replays it: exit 0, or 2"))

/** The first flag given that only a trials run takes (`--concurrency`, a second `--variant`…), if any. */
const trialsOnly = (flags: {
  readonly variant: ReadonlyArray<string>
  readonly concurrency: Option.Option<number>
  readonly report: Option.Option<string>
  readonly fresh: boolean
  readonly baseUrl: Option.Option<string>
  readonly requestTimeout: Option.Option<string>
  readonly allTraces: boolean
  readonly cluster: boolean
  readonly price: Option.Option<string>
}): string | undefined =>
  flags.variant.length > 1
    ? "a second --variant (to compare two)"
    : Option.isSome(flags.concurrency)
      ? "--concurrency"
      : Option.isSome(flags.report)
        ? "--report"
        : flags.fresh
          ? "--fresh"
          : Option.isSome(flags.baseUrl)
            ? "--base-url"
            : Option.isSome(flags.requestTimeout)
              ? "--request-timeout"
              : flags.allTraces
                ? "--all-traces"
                : flags.cluster
                  ? "--cluster"
                  : Option.isSome(flags.price)
                    ? "--price"
                    : undefined

/** Exit 2 after saying why on stderr. */
const usageError = (message: string): Effect.Effect<never, ExitCode> =>
  Effect.andThen(Console.error(message), Effect.fail(invalidExit))

const test = Command.make(
  "test",
  {
    paths: Argument.String("path").pipe(
      Argument.withDescription("scenario files or folders (every *.json under them)"),
      Argument.atLeast(1)
    ),
    json,
    variant: Flag.Literals("variant", Variant.names).pipe(
      Flag.atLeast(0),
      Flag.withDescription(
        "the harness variant: fixed (the default) or before; with --trials, give it twice to compare two variants on paired trials (the second against the first)"
      )
    ),
    trials: Flag.Int("trials").pipe(
      Flag.optional,
      Flag.withDescription(
        "run every live case N times per variant against --model (the other scenarios once), with pass rates, intervals and thresholds"
      )
    ),
    model: Flag.String("model").pipe(
      Flag.optional,
      Flag.withDescription("with --trials: PROVIDER:MODEL, PROVIDER one of anthropic, openai, openai-responses")
    ),
    concurrency: Flag.Int("concurrency").pipe(
      Flag.optional,
      Flag.withDescription("with --trials: how many trials run at once, over all cases (default 4)")
    ),
    report: Flag.String("report").pipe(
      Flag.optional,
      Flag.withDescription(
        "with --trials: the report folder (journal.jsonl, report.jsonl, traces/, captured/; default harness-trials); the same folder again resumes"
      )
    ),
    fresh: Flag.Boolean("fresh").pipe(
      Flag.withDefault(false),
      Flag.withDescription("with --trials: start the report folder's journal over instead of resuming it")
    ),
    baseUrl: Flag.String("base-url").pipe(
      Flag.optional,
      Flag.withDescription("with --trials: the provider's base URL (default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL)")
    ),
    requestTimeout: Flag.String("request-timeout").pipe(
      Flag.optional,
      Flag.withDescription("with --trials: how long one model request may take (90s, 2m; default 10m)")
    ),
    allTraces: Flag.Boolean("all-traces").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "with --trials: write every trial's trace under --report DIR/traces (default: only the failing trials')"
      )
    ),
    cluster: Flag.Boolean("cluster").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "with --trials --engine postgres: run the trials on the runners of the database (harness runner) instead of in this process"
      )
    ),
    traces: Flag.String("traces").pipe(
      Flag.optional,
      Flag.withDescription(
        "record each conversation and plan session as JSON Lines in this folder (for harness view); --json lines name them"
      )
    ),
    workers: Flag.Int("workers").pipe(
      Flag.optional,
      Flag.withDescription(
        "run the files on N runners, this process and N - 1 worker threads (1: this process alone); default: every core once there are 1,000 files or more, on 4 cores or more"
      )
    ),
    price: Flag.String("price").pipe(
      Flag.optional,
      Flag.withDescription(
        "with --trials: the model's price in USD per million tokens, input=3,output=15[,cached=0.3,cache-write=3.75,reasoning=15] (default: the shipped table; none: no money shown)"
      )
    ),
    engine,
    databaseUrl
  },
  (flags) => {
    const trials = Option.getOrUndefined(flags.trials)
    const model = Option.getOrUndefined(flags.model)
    if (trials !== undefined || model !== undefined) {
      const unused = Option.isSome(flags.traces)
        ? "--traces (each trial's trace is written under --report DIR/traces)"
        : Option.isSome(flags.workers)
          ? "--workers (trials run --concurrency at once, in this process or on the runners of --engine postgres --cluster)"
          : undefined
      if (unused !== undefined) {
        return usageError(`harness test: ${unused} does not apply with --trials; nothing was run`)
      }
      return traced(
        "test",
        lazy(
          () => import("./commands/Trials.ts"),
          (m) =>
            m.trials({
              paths: flags.paths,
              trials,
              model,
              variants: flags.variant,
              concurrency: Option.getOrUndefined(flags.concurrency),
              json: flags.json,
              report: Option.getOrUndefined(flags.report),
              fresh: flags.fresh,
              baseUrl: Option.getOrUndefined(flags.baseUrl),
              requestTimeout: Option.getOrUndefined(flags.requestTimeout),
              allTraces: flags.allTraces,
              engine: { engine: flags.engine, databaseUrl: Option.getOrUndefined(flags.databaseUrl) },
              cluster: flags.cluster,
              price: Option.getOrUndefined(flags.price)
            })
        )
      )
    }
    const only = trialsOnly(flags)
    if (only !== undefined)
      return usageError(`harness test: ${only} runs only with --trials N --model PROVIDER:MODEL; nothing was run`)
    return traced(
      "test",
      lazy(
        () => import("./commands/Test.ts"),
        (m) =>
          m.test({
            ...scenarioOptions({ ...flags, variant: flags.variant[0] ?? "fixed" }),
            paths: flags.paths,
            traces: Option.getOrUndefined(flags.traces),
            workers: Option.getOrUndefined(flags.workers)
          })
      )
    )
  }
).pipe(
  Command.withDescription(
    "Run every scenario under the paths; closes with 'N passed, N failed'. With --trials N --model P:M, every live case runs N times per variant"
  )
)

const salmorejo = Command.make(
  "salmorejo",
  {
    lang: Flag.Literals("lang", ["en", "es"]).pipe(
      Flag.withDefault("en"),
      Flag.withDescription("the language of the conversation")
    )
  },
  ({ lang }) =>
    lazy(
      () => import("./commands/Demo.ts"),
      (m) => m.demo({ walkthrough: "salmorejo", lang })
    )
).pipe(Command.withDescription("Errors as observations: a conversation with two errors, turn by turn"))

const plan = Command.make("plan", {}, () =>
  lazy(
    () => import("./commands/Demo.ts"),
    (m) => m.demo({ walkthrough: "plan" })
  )
).pipe(Command.withDescription("Plan and execute: every path, with each revision's diff drawn"))

const regress = Command.make("regress", { variant }, ({ variant }) =>
  lazy(
    () => import("./commands/Demo.ts"),
    (m) => m.demo({ walkthrough: "regress", variant: Variant.byName[variant] })
  )
).pipe(Command.withDescription("From an agent failure to a regression test: trace, criterion, cases, runs"))

const idempotency = Command.make("idempotency", {}, () =>
  lazy(
    () => import("./commands/Demo.ts"),
    (m) => m.demo({ walkthrough: "idempotency" })
  )
).pipe(
  Command.withDescription(
    "What is safe to repeat: once vs twice, retry safety, and a crash resumed on a SQLite journal"
  )
)

const demo = Command.make("demo").pipe(
  Command.withDescription("Walkthroughs of the ideas, turn by turn"),
  Command.withSubcommands([salmorejo, plan, regress, idempotency])
)

/** A flag that may be given any number of times. */
const repeated = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.atLeast(0), Flag.withDescription(`${description} (repeatable)`))

/** The folder of the file tools (`mcp serve`, `agent`). */
const fileRoot = Flag.String("root").pipe(Flag.withDescription("the folder the file tools work in (it must exist)"))

/** The file tools' language (`mcp serve`, `agent`). */
const toolsLang = Flag.Literals("lang", ["en", "es"]).pipe(
  Flag.withDefault("en"),
  Flag.withDescription("the tools' names and messages: en (read…) or es (leer…)")
)

const mcpServe = Command.make(
  "serve",
  {
    tools: Flag.Literals("tools", ["files"]).pipe(
      Flag.withDescription("the toolset to serve: files (read, list, search, write, append)")
    ),
    root: fileRoot,
    lang: toolsLang,
    http: Flag.Int("http").pipe(
      Flag.optional,
      Flag.withDescription("serve Streamable HTTP on 127.0.0.1 at this port (0: any free one) instead of stdio")
    ),
    journal: Flag.String("journal").pipe(
      Flag.optional,
      Flag.withDescription("a SQLite idempotency journal: a call id sent again is replayed, never run twice")
    ),
    policy: Flag.String("policy").pipe(
      Flag.optional,
      Flag.withDescription("a permission policy (JSON) for the served calls; no one is asked: ask means denied")
    ),
    allow: repeated("allow", "run the tools this glob names"),
    deny: repeated("deny", "never run the tools this glob names")
  },
  ({ tools, root, lang, http, journal, policy, allow, deny }) =>
    traced(
      "mcp serve",
      lazy(
        () => import("./commands/Mcp.ts"),
        (m) =>
          m.serve({
            tools,
            root,
            lang,
            http: Option.getOrUndefined(http),
            journal: Option.getOrUndefined(journal),
            policy: Option.getOrUndefined(policy),
            allow,
            deny
          })
      )
    )
).pipe(
  Command.withDescription(
    "Serve the file tools of a folder over MCP: stdio until stdin ends, or Streamable HTTP until SIGINT/SIGTERM"
  )
)

const mcp = Command.make("mcp").pipe(
  Command.withDescription("MCP: the harness's tools for any MCP client"),
  Command.withSubcommands([mcpServe])
)

const view = Command.make(
  "view",
  {
    files: Argument.String("file").pipe(
      Argument.withDescription(
        "conversation traces, plan session traces (harness run --trace) and test reports (harness test --json)"
      ),
      Argument.atLeast(1)
    ),
    out: Flag.String("out").pipe(
      Flag.optional,
      Flag.withDescription("write the page here (one self-contained HTML file) instead of serving it")
    ),
    port: Flag.Int("port").pipe(
      Flag.optional,
      Flag.withDescription("serve on 127.0.0.1 at this port (default: any free one)")
    )
  },
  ({ files, out, port }) =>
    lazy(
      () => import("./commands/View.ts"),
      (m) => m.view({ files, out: Option.getOrUndefined(out), port: Option.getOrUndefined(port) })
    )
).pipe(
  Command.withDescription(
    "See a run: traces and reports as one HTML page, written with --out or served on 127.0.0.1 until Ctrl-C"
  )
)

/** A flag given any number of times (`--allow read --allow list`). */
const agent = Command.make(
  "agent",
  {
    prompt: Argument.String("prompt").pipe(Argument.withDescription("what the model is asked to do")),
    model: Flag.String("model").pipe(
      Flag.withDescription(
        "PROVIDER:MODEL, PROVIDER one of anthropic (ANTHROPIC_API_KEY), openai (Chat Completions, any OpenAI-compatible server; OPENAI_API_KEY), openai-responses"
      )
    ),
    baseUrl: Flag.String("base-url").pipe(
      Flag.optional,
      Flag.withDescription(
        "the provider's base URL, API version included (default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL)"
      )
    ),
    requestTimeout: Flag.String("request-timeout").pipe(
      Flag.optional,
      Flag.withDescription(
        "how long one model request may take, to the reply's last byte (90s, 2m; default 10m); past it the request is aborted and retried"
      )
    ),
    root: fileRoot,
    lang: toolsLang,
    maxTurns: Flag.Int("max-turns").pipe(Flag.optional, Flag.withDescription("model calls at most (default 10)")),
    trace: Flag.String("trace").pipe(
      Flag.optional,
      Flag.withDescription("record the run as JSON Lines here (for harness capture and harness view)")
    ),
    journal: Flag.String("journal").pipe(
      Flag.optional,
      Flag.withDescription("a SQLite idempotency journal behind the permission gate")
    ),
    policy: Flag.String("policy").pipe(
      Flag.optional,
      Flag.withDescription("a permission policy (JSON); default: read-only tools run, anything else is asked about")
    ),
    allow: repeated("allow", "run the tools this glob names without asking"),
    ask: repeated("ask", "ask before the tools this glob names run"),
    deny: repeated("deny", "never run the tools this glob names"),
    mcpConfig: repeated(
      "mcp-config",
      `mount the MCP servers of this JSON file, the "mcpServers" file of Claude Desktop, Claude Code and Cursor (\${VAR} expanded)`
    ),
    mcp: repeated("mcp", `mount an MCP server started with this command line ("node server.js --flag")`),
    mcpUrl: repeated("mcp-url", "mount an MCP server reached at this Streamable HTTP URL"),
    untrustedOutput: Flag.Boolean("untrusted-output").pipe(
      Flag.withDefault(false),
      Flag.withDescription("mark tool output as untrusted data for the model")
    ),
    tokenBudget: Flag.Int("token-budget").pipe(
      Flag.optional,
      Flag.withDescription(
        "input and output tokens at most, every call's: a call whose prompt and --max-output-tokens could pass it is not made (stop token_budget)"
      )
    ),
    costBudget: Flag.Finite("cost-budget").pipe(
      Flag.optional,
      Flag.withDescription(
        "USD at most (0.50), priced by --price or the shipped price table: a call that could pass it is not made (stop cost_budget)"
      )
    ),
    price: Flag.String("price").pipe(
      Flag.optional,
      Flag.withDescription(
        "the model's price in USD per million tokens: input=3,output=15[,cached=0.3,cache-write=3.75,reasoning=15] (default: the shipped table)"
      )
    ),
    contextWindow: Flag.Int("context-window").pipe(
      Flag.optional,
      Flag.withDescription(
        "the model's context window in tokens: near it (80%) old tool results are elided, then the oldest turns dropped, every call kept with its result; a history that cannot fit stops the run (context_window)"
      )
    ),
    summarize: Flag.Boolean("summarize").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "with --context-window: the turns before the last two are summarized by the model rather than elided or dropped, each summary's call counted against --token-budget and --cost-budget"
      )
    ),
    maxOutputTokens: Flag.Int("max-output-tokens").pipe(
      Flag.optional,
      Flag.withDescription(
        "the most output tokens one reply may have, sent to the provider (default 8192 with a budget)"
      )
    ),
    stream: Flag.Boolean("stream").pipe(
      Flag.withDefault(true),
      Flag.withDescription(
        "print the model's text as it arrives, Ctrl-C stopping the run cleanly (exit 130); --no-stream: each turn once complete"
      )
    ),
    park: Flag.Boolean("park").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "with --journal: a call the policy asks about waits in the journal file (no timeout) until harness approve ID or harness deny ID answers it, from any terminal"
      )
    ),
    session: Flag.String("session").pipe(
      Flag.optional,
      Flag.withDescription(
        "the session parked calls belong to; with --engine postgres the conversation's id, to resume it (default: a new one, printed)"
      )
    ),
    engine: Flag.Literals("engine", ["local", "postgres"]).pipe(
      Flag.withDefault("local"),
      Flag.withDescription(
        "local (this process) or postgres: the conversation on the durable engine, every turn and call recorded, asked calls parked until harness approve"
      )
    ),
    databaseUrl,
    commands: Flag.Boolean("commands").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "offer the command tool: a program run inside a bubblewrap sandbox over --root (system read-only, --root the only writable place, no network, the environment cleared); refused where no sandbox can run"
      )
    ),
    shell: Flag.Boolean("shell").pipe(
      Flag.withDefault(false),
      Flag.withDescription("with --commands: the shell tool too (a line run with /bin/sh -c in the same sandbox)")
    ),
    network: Flag.Boolean("network").pipe(
      Flag.withDefault(false),
      Flag.withDescription("with --commands: grant the sandbox the network")
    ),
    allowCommand: repeated(
      "allow-command",
      "run the commands this pattern names exactly without asking ('git status', 'npm test *')"
    ),
    askCommand: repeated("ask-command", "ask before the commands this pattern names run ('git push *')"),
    denyCommand: repeated(
      "deny-command",
      "never run the commands this pattern names, however they are spelt or wrapped ('rm -rf *')"
    ),
    commandEnv: repeated(
      "command-env",
      "with --commands: declare a variable in the sandbox, NAME=VALUE, or NAME for this process's value"
    ),
    commandTimeout: Flag.String("command-timeout").pipe(
      Flag.optional,
      Flag.withDescription(
        "with --commands: how long one command may run before it and everything it started are killed (90s, 5m; default 60s)"
      )
    ),
    commandMemory: Flag.String("command-memory").pipe(
      Flag.optional,
      Flag.withDescription(
        "with --commands: the most private writable memory each process of a command may hold (512M, 2G; default 4G)"
      )
    )
  },
  (o) =>
    traced(
      "agent",
      lazy(
        () => import("./commands/Agent.ts"),
        (m) =>
          m.agent({
            ...o,
            baseUrl: Option.getOrUndefined(o.baseUrl),
            requestTimeout: Option.getOrUndefined(o.requestTimeout),
            maxTurns: Option.getOrUndefined(o.maxTurns),
            trace: Option.getOrUndefined(o.trace),
            journal: Option.getOrUndefined(o.journal),
            policy: Option.getOrUndefined(o.policy),
            tokenBudget: Option.getOrUndefined(o.tokenBudget),
            costBudget: Option.getOrUndefined(o.costBudget),
            price: Option.getOrUndefined(o.price),
            maxOutputTokens: Option.getOrUndefined(o.maxOutputTokens),
            contextWindow: Option.getOrUndefined(o.contextWindow),
            session: Option.getOrUndefined(o.session),
            databaseUrl: Option.getOrUndefined(o.databaseUrl),
            commandTimeout: Option.getOrUndefined(o.commandTimeout),
            commandMemory: Option.getOrUndefined(o.commandMemory)
          })
      )
    )
).pipe(
  Command.withDescription(
    "Run a real model over the file tools of a folder, every call through a permission gate: exit 0 end, 1 turn cap or model failure, 2 bad usage, 130 Ctrl-C"
  )
)

const runner = Command.make(
  "runner",
  {
    databaseUrl,
    port: Flag.Int("port").pipe(
      Flag.withDefault(34431),
      Flag.withDescription("the port the other processes of the cluster reach this runner at (default 34431)")
    ),
    host: Flag.String("host").pipe(
      Flag.optional,
      Flag.withDescription("the address the other processes reach this runner at (default 127.0.0.1)")
    )
  },
  (o) =>
    lazy(
      () => import("./commands/Runner.ts"),
      (m) =>
        m.runner({
          databaseUrl: Option.getOrUndefined(o.databaseUrl),
          port: o.port,
          host: Option.getOrUndefined(o.host)
        })
    )
).pipe(
  Command.withDescription(
    "Run trials for harness test --trials --engine postgres --cluster as one runner of the durable engine, until Ctrl-C: exit 0, or 2"
  )
)

const approvalsJournal = Flag.String("journal").pipe(
  Flag.optional,
  Flag.withDescription("the journal file the run parked its calls in (harness agent --journal FILE --park)")
)

const approvalsDatabase = Flag.String("database-url").pipe(
  Flag.optional,
  Flag.withDescription(
    "the durable engine's Postgres database (harness agent --engine postgres; default: $DATABASE_URL)"
  )
)

const approvalsList = Command.make(
  "list",
  {
    journal: approvalsJournal,
    databaseUrl: approvalsDatabase,
    all: Flag.Boolean("all").pipe(Flag.withDefault(false), Flag.withDescription("answered approvals too")),
    session: Flag.String("session").pipe(Flag.optional, Flag.withDescription("only this session's")),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("one JSON object per approval"))
  },
  (o) =>
    lazy(
      () => import("./commands/Approvals.ts"),
      (m) =>
        m.list({
          journal: Option.getOrUndefined(o.journal),
          databaseUrl: Option.getOrUndefined(o.databaseUrl),
          all: o.all,
          session: Option.getOrUndefined(o.session),
          json: o.json
        })
    )
).pipe(Command.withDescription("The calls waiting for a person's approval (every one with --all), oldest first"))

const approvals = Command.make("approvals").pipe(
  Command.withDescription("Calls a permission rule asked about, parked until someone answers: harness approve / deny"),
  Command.withSubcommands([approvalsList])
)

/** `harness approve ID` and `harness deny ID`: one answer, once. */
const answering = (verb: "approve" | "deny") =>
  Command.make(
    verb,
    {
      id: Argument.String("id").pipe(
        Argument.withDescription("the approval's id (harness approvals list), or a unique prefix of 4 digits or more")
      ),
      journal: approvalsJournal,
      databaseUrl: approvalsDatabase,
      by: Flag.String("by").pipe(Flag.optional, Flag.withDescription("who answers (default: USER@HOST)")),
      reason: Flag.String("reason").pipe(
        Flag.optional,
        Flag.withDescription(verb === "deny" ? "why: the model reads it" : "why (recorded with the answer)")
      ),
      digest: Flag.String("digest").pipe(
        Flag.optional,
        Flag.withDescription(
          "the digest you saw (8 hexadecimal digits or more): an approval for other arguments is refused"
        )
      )
    },
    (o) =>
      lazy(
        () => import("./commands/Approvals.ts"),
        (m) =>
          m.answer(
            {
              id: o.id,
              journal: Option.getOrUndefined(o.journal),
              databaseUrl: Option.getOrUndefined(o.databaseUrl),
              by: Option.getOrUndefined(o.by),
              reason: Option.getOrUndefined(o.reason),
              digest: Option.getOrUndefined(o.digest)
            },
            verb === "approve"
          )
      )
  ).pipe(
    Command.withDescription(
      verb === "approve"
        ? "Approve a parked call: it runs once. Exit 0 taken, 1 refused (answered already, other arguments), 2 bad usage"
        : "Deny a parked call: it never runs, the model reads --reason. Exit 0 taken, 1 refused, 2 bad usage"
    )
  )

/**
 * The whole command tree.
 *
 * @since 0.1.0
 */
export const harness = Command.make("harness").pipe(
  Command.withDescription("agent-harness: errors as observations, scripted models, scenario files"),
  Command.withSubcommands([
    run,
    test,
    capture,
    view,
    agent,
    approvals,
    answering("approve"),
    answering("deny"),
    demo,
    mcp,
    runner
  ])
)

/**
 * Runs the CLI on the given arguments (without the program name) and gives the exit code:
 * 0 pass (and `--help`), 1 a scenario failed, 2 an invalid file or bad usage. effect/cli has
 * already printed usage errors with the help text.
 *
 * @since 0.1.0
 */
export const main = (args: ReadonlyArray<string>) =>
  Command.runWith(harness, { version: Version.current() })(args).pipe(
    Effect.as(0),
    Effect.catchTags({
      ExitCode: (e: ExitCode) => Effect.succeed(e.code),
      Interrupted: (e: Interrupted) => Effect.succeed(e.code),
      ShowHelp: (help: CliError.ShowHelp) => Effect.succeed(help.errors.length === 0 ? 0 : 2)
    }),
    Effect.catch((error: CliError.CliError) => Effect.as(Console.error(error.message), 2))
  )
