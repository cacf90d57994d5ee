/**
 * `harness agent --model PROVIDER:MODEL --root DIR PROMPT`: a real model (`Providers`, through
 * `AiSdkModel`) drives the loop over the five file tools of the user's real folder tree
 * (`TreeFiles`: `.gitignore` honoured, `.git` never touched, links and special files refused),
 * streamed (`Loop.stream`): its text and reasoning (dimmed) printed as they arrive, each call as
 * it starts and what the model is shown as the calls are answered (`Live`, in the transcript's
 * words). Ctrl-C stops a streamed run cleanly (the loop's `interrupt`: the text so far kept, no
 * call started after it, `interrupted`, exit 130); a second Ctrl-C exits at once. `--no-stream`
 * runs `Loop.run` and prints each turn once it is complete, as the demo prints a conversation. Every call goes through
 * the permission gate (`AgentPolicy`: `Policy.askBeforeChanges` unless `--policy`, the
 * `--deny`/`--ask`/`--allow` shorthands in front): on a terminal a person answers y / n /
 * always on stderr, without one no one can be asked and the call is denied. A `--journal` sits
 * behind the gate (a denied call is never journaled). `--mcp-config FILE` (the `mcpServers` file
 * every MCP client reads: `McpConfig`), `--mcp` and `--mcp-url` mount MCP servers' tools into the
 * same toolset, through the same gate. One server's calls of a turn run one after another, and
 * different servers' side by side (lanes, `Loop`); a running tool's progress is shown on stderr
 * as it comes (`AgentProgress`), never to the model.
 *
 * `--trace FILE` records the run with the annotations `harness capture` needs to replay it (the
 * locale, the folder's files at the start and at the end, the policy, the answers a person gave,
 * the MCP servers as mounted): the path from a live failure to a regression test.
 *
 * Exit 0 when the model ends; 1 when it stops at the turn cap or the model fails (the message is
 * printed); 130 when Ctrl-C stopped it; 2 for bad usage, a missing API key, a policy that does not decode or a server that
 * cannot be mounted — before any request is sent.
 *
 * Loaded only when the command runs: no other command loads the AI SDK.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import process from "node:process"
import { AiSdkModel } from "@agent-harness/ai-sdk"
import { Execute, Loop, Message, Model, Trace } from "@agent-harness/executor"
import { Files, FileTools, TreeFiles } from "@agent-harness/file-tools"
import { Journal, SqliteStore } from "@agent-harness/idempotency"
import { Approver, Gate, Parked, type Policy, Untrusted } from "@agent-harness/permission"
import type { Mount } from "@agent-harness/mcp"
import { Commands, Conversation, type Mounter, Report } from "@agent-harness/scenario"
import { Compactor, type Estimate, Strategy, Summarizer } from "@agent-harness/compaction"
import { MessageCatalog, type Tool, Toolset } from "@agent-harness/tool-schema"
import { Console, Context, Effect, type FileSystem, Layer, Logger, Path, Result, type Scope, Stream } from "effect"
import * as AgentApprover from "../agent/Approver.ts"
import * as AgentProgress from "../agent/Progress.ts"
import * as AgentPolicy from "../agent/Policy.ts"
import * as CommandLine from "../agent/CommandLine.ts"
import type * as AgentCommands from "../agent/Commands.ts"
import * as Counting from "../agent/Counting.ts"
import * as ExitCode from "../common/ExitCode.ts"
import * as McpConfig from "@agent-harness/mcp/config"
import * as Live from "../printing/Live.ts"
import * as Outputs from "../printing/Outputs.ts"
import * as Budgets from "../agent/Budgets.ts"
import * as Providers from "../agent/Providers.ts"
import * as RootFolder from "../common/RootFolder.ts"
import * as Signal from "../common/Signal.ts"
import * as Style from "../printing/Style.ts"
import * as Warnings from "../printing/Warnings.ts"
import * as Transcript from "../printing/Transcript.ts"

/**
 * What `harness agent` was asked to do.
 *
 * @since 0.1.0
 */
export interface Options {
  /** `PROVIDER:MODEL`. */
  readonly model: string
  /** The provider's base URL (`--base-url`). */
  readonly baseUrl?: string | undefined
  /** How long one model request may take (`--request-timeout`, `90s`); default 10 minutes. */
  readonly requestTimeout?: string | undefined
  /** The folder the file tools work in. */
  readonly root: string
  /** The tools', the messages' and the transcript's language. */
  readonly lang: FileTools.Locale
  /** Model calls at most (default `Loop.defaultMaxTurns`). */
  readonly maxTurns?: number | undefined
  /** Record the run as JSON Lines here (for `harness capture` and `harness view`). */
  readonly trace?: string | undefined
  /** A SQLite idempotency journal, behind the gate. */
  readonly journal?: string | undefined
  /** The policy file. */
  readonly policy?: string | undefined
  /** Tool globs to allow, ask about, deny. */
  readonly allow: ReadonlyArray<string>
  readonly ask: ReadonlyArray<string>
  readonly deny: ReadonlyArray<string>
  /** `mcpServers` files (`McpConfig`), their servers mounted first. */
  readonly mcpConfig?: ReadonlyArray<string> | undefined
  /** MCP servers to start (`COMMAND ARGS`, quotes respected) and to reach (URLs). */
  readonly mcp: ReadonlyArray<string>
  readonly mcpUrl: ReadonlyArray<string>
  /** Mark tool output as untrusted data. */
  readonly untrustedOutput: boolean
  /** What to ask the model. */
  readonly prompt: string
  /** Print each reply as it streams (`Loop.stream`; the default), or each turn once complete (`--no-stream`). */
  readonly stream?: boolean | undefined
  /** `--token-budget N`: input and output tokens, every call's, at most. */
  readonly tokenBudget?: number | undefined
  /** `--cost-budget USD`: money at most, priced by `--price` or the shipped table (`Prices`). */
  readonly costBudget?: number | undefined
  /** `--price input=3,output=15,...`: USD per million tokens, over the shipped table's. */
  readonly price?: string | undefined
  /** `--max-output-tokens N`: the per-reply output cap sent to the provider (default 8192 with a budget). */
  readonly maxOutputTokens?: number | undefined
  /** `--context-window N`: compact the history near this many tokens (`Compactor`, the default strategy). */
  readonly contextWindow?: number | undefined
  /** `--summarize`: with `--context-window`, old turns are summarized by the model (its calls counted against the budget) rather than elided or dropped. */
  readonly summarize?: boolean | undefined
  /**
   * `--park`: a call a rule asks about is parked in the `--journal` file as a pending approval
   * and waits (no timeout) for `harness approve ID` / `harness deny ID` from any process, instead
   * of a question at the terminal.
   */
  readonly park?: boolean | undefined
  /** `--session NAME`: the session parked calls belong to (default: a new one, printed). */
  readonly session?: string | undefined
  /** `--engine postgres`: the conversation on the durable engine (`agent/Durable.ts`). */
  readonly engine?: "local" | "postgres" | undefined
  /** `--database-url` of `--engine postgres` (default `$DATABASE_URL`). */
  readonly databaseUrl?: string | undefined
  /** Command patterns to allow (exactly), ask about, deny (`--allow-command 'git status'`). */
  readonly allowCommand?: ReadonlyArray<string> | undefined
  readonly askCommand?: ReadonlyArray<string> | undefined
  readonly denyCommand?: ReadonlyArray<string> | undefined
  /** `--commands`: the sandboxed command tool over `--root` (`agent/Commands.ts`). */
  readonly commands?: boolean | undefined
  /** `--shell`: with `--commands`, the shell tool too. */
  readonly shell?: boolean | undefined
  /** `--network`: with `--commands`, grant the sandbox the network. */
  readonly network?: boolean | undefined
  /** `--command-env NAME[=VALUE]`: with `--commands`, the sandbox's declared environment. */
  readonly commandEnv?: ReadonlyArray<string> | undefined
  /** `--command-timeout`: with `--commands`, how long one command may run (default 60 s). */
  readonly commandTimeout?: string | undefined
  /** `--command-memory`: with `--commands`, each process's private writable memory (default 4G). */
  readonly commandMemory?: string | undefined
}

/** The system prompt of the file tools, in each language. */
const systemPrompt: Readonly<Record<FileTools.Locale, string>> = {
  en: "You work on the files of one folder through your tools: read, list, search, write and append. A path is the name of a file in that folder. A result that starts with 'not executed:' did not run: read why before you try again.",
  es: "Trabajas con los ficheros de una carpeta mediante tus herramientas: leer, listar, buscar, escribir y añadir. Una ruta es el nombre de un fichero de esa carpeta. Un resultado que empieza por 'no se ha ejecutado:' no se ha ejecutado: lee por qué antes de volver a intentarlo."
}

/** Ends the command with exit 2 after saying why on stderr. */
const usage = (message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(`harness agent: ${message}`), Effect.fail(ExitCode.invalid))

/** A server to mount, and how the trace records it (a scenario's `mcp` declaration, once its prefix is known). */
interface Server {
  readonly entry: Mount.Entry
  readonly declare: (prefix: string) => Mounter.Declaration
  /** Where the user gave it, as an error line leads: `--mcp-config FILE: mcpServers.fs`, `--mcp`. */
  readonly given: string
}

/**
 * `--mcp-config`, `--mcp` and `--mcp-url`, checked (each file's servers, `${VAR}` expanded;
 * quotes closed, URLs http or https), in that order. A started server gets what a child needs
 * to run (`McpConfig.childEnvironment`), never the provider's API key.
 */
const serversOf = (
  options: Options,
  cwd: string
): Effect.Effect<ReadonlyArray<Server>, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const servers: Array<Server> = []
    const configured = yield* Effect.catch(McpConfig.load(options.mcpConfig ?? [], process.env), usage)
    for (const { file, name, declaration, entry } of configured) {
      servers.push({
        entry,
        declare: () => declaration,
        given: `--mcp-config ${file}: ${McpConfig.pathText(["mcpServers", name])}`
      })
    }
    for (const line of options.mcp) {
      const words = CommandLine.split(line)
      if (Result.isFailure(words)) return yield* usage(`--mcp ${JSON.stringify(line)}: ${words.failure}`)
      const [command = "", ...args] = words.success
      servers.push({
        entry: { server: { _tag: "Stdio", command, args, env: McpConfig.childEnvironment(process.env) } },
        declare: (prefix) => ({ command, args: [...args], cwd, prefix }),
        given: "--mcp"
      })
    }
    for (const url of options.mcpUrl) {
      const parsed = URL.canParse(url) ? new URL(url) : undefined
      if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
        return yield* usage(`--mcp-url ${JSON.stringify(url)}: expected an http:// or https:// URL`)
      }
      servers.push({
        entry: { server: { _tag: "Http", url } },
        declare: (prefix) => ({ url, prefix }),
        given: "--mcp-url"
      })
    }
    return servers
  })

/**
 * The servers mounted for the length of the scope: their tools, and their declarations as
 * mounted. Warnings go to stderr; a server that cannot be mounted is exit 2.
 */
const mountAll = (
  servers: ReadonlyArray<Server>
): Effect.Effect<
  {
    readonly toolset: Toolset.Toolset<Tool.Any>
    readonly declared: ReadonlyArray<Mounter.Declaration>
    /** The mounted tools' outcomes in the executor's words (`Mount.outcomes`), innermost; none without servers. */
    readonly outcomes: ReadonlyArray<Execute.Middleware>
  },
  ExitCode.ExitCode,
  Scope.Scope
> =>
  Effect.gen(function* () {
    if (servers.length === 0) return { toolset: Toolset.make(), declared: [], outcomes: [] }
    const { Mount } = yield* Effect.promise(() => import("@agent-harness/mcp"))
    const all = yield* Effect.catch(Mount.mountAll(servers.map((server) => server.entry)), (error) =>
      usage(`${(error.entry === undefined ? undefined : servers[error.entry])?.given ?? "--mcp"}: ${error.message}`)
    )
    for (const warning of all.warnings) yield* Console.error(Report.printable(`harness agent: mcp ${warning}`))
    return {
      toolset: all.toolset,
      outcomes: [Mount.outcomes],
      declared: all.mounted.flatMap((one, i) => {
        const server = servers[i]
        return server === undefined ? [] : [server.declare(one.prefix)]
      })
    }
  })

/**
 * `--trace` and `--journal`: never a folder, never the policy file nor each other (the trace
 * would empty the journal), never a file the tools can see (anywhere inside `--root`, links
 * resolved: `RootFolder.refuseInside`), where the model could read it or write over it.
 */
const checkOutputs = (options: Options): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const root = path.resolve(options.root)
    const outputs = [
      { flag: "--trace", file: options.trace, other: { flag: "--journal", file: options.journal } },
      { flag: "--journal", file: options.journal, other: { flag: "--trace", file: options.trace } }
    ] as const
    // The policy too: a model that could write over it would widen its own rules for the next run.
    if (options.policy !== undefined)
      yield* RootFolder.refuseInside("harness agent", options.root, "--policy", options.policy)
    // And the servers: a model that could write an --mcp-config file would choose what runs next time.
    for (const config of options.mcpConfig ?? []) {
      yield* RootFolder.refuseInside("harness agent", options.root, "--mcp-config", config)
    }
    for (const { flag, file, other } of outputs) {
      if (file === undefined) continue
      yield* RootFolder.refuseInside("harness agent", options.root, flag, file)
      if (other.file !== undefined && path.resolve(other.file) === path.resolve(file)) {
        return yield* usage(`${flag} ${file}: it is also the ${other.flag} file; give each its own`)
      }
      const inputs = [
        { path: options.policy, what: "the --policy file" },
        { path: other.file, what: `the ${other.flag} file` },
        ...(options.mcpConfig ?? []).map((config) => ({ path: config, what: "an --mcp-config file" }))
      ]
      for (const input of inputs) {
        if (input.path !== undefined) yield* Outputs.refuseOverwrite(flag, file, { path: input.path, what: input.what })
      }
      if (options.policy === undefined && other.file === undefined) {
        yield* Outputs.refuseOverwrite(flag, file, { path: root, what: "the --root folder" })
      }
    }
  })

/** What the loop's usage adds up to, or `undefined` when the provider reported none. */
const usageLine = (turns: ReadonlyArray<Loop.Turn>): string | undefined => {
  let input = 0
  let output = 0
  let reported = false
  for (const turn of turns) {
    if (turn.usage === undefined) continue
    reported = true
    input += turn.usage.inputTokens ?? 0
    output += turn.usage.outputTokens ?? 0
  }
  return reported ? `tokens: ${input} in, ${output} out` : undefined
}

/**
 * Runs the agent: checks everything it was given (exit 2, nothing sent), then the loop, streamed
 * (or turn by turn, `stream: false`); exit 0 when the model ends, 1 at the turn cap or when the
 * model fails, 130 (`Interrupted`) when Ctrl-C stopped it.
 *
 * @since 0.1.0
 */
export const agent = (
  options: Options
): Effect.Effect<void, ExitCode.ExitCode | ExitCode.Interrupted, FileSystem.FileSystem | Path.Path> =>
  Effect.scoped(
    Effect.gen(function* () {
      const resolved = Providers.resolve(options.model, options.baseUrl, process.env, options.requestTimeout)
      if (Result.isFailure(resolved)) return yield* usage(resolved.failure)
      const maxTurns = options.maxTurns ?? Loop.defaultMaxTurns
      if (!Number.isSafeInteger(maxTurns) || maxTurns < 1) {
        return yield* usage(`--max-turns ${maxTurns}: expected a whole number of at least 1`)
      }
      if (options.prompt.trim() === "") return yield* usage("the prompt is empty: say what the model is to do")
      yield* RootFolder.check("harness agent", options.root)
      yield* checkOutputs(options)
      const servers = yield* serversOf(options, process.cwd())
      const policy = yield* Effect.catch(
        AgentPolicy.load({
          file: options.policy,
          shorthands: {
            allow: options.allow,
            ask: options.ask,
            deny: options.deny,
            allowCommand: options.allowCommand ?? [],
            askCommand: options.askCommand ?? [],
            denyCommand: options.denyCommand ?? []
          },
          warn: false
        }),
        usage
      )
      const spent = Budgets.spendingOf(options, resolved.success)
      if (Result.isFailure(spent)) return yield* usage(spent.failure)
      const spending = spent.success
      const window = options.contextWindow
      if (window !== undefined && (!Number.isSafeInteger(window) || window < 1)) {
        return yield* usage(`--context-window ${window}: expected a whole number of tokens of at least 1`)
      }
      if (options.summarize === true && window === undefined) {
        return yield* usage("--summarize compacts near --context-window: add --context-window N")
      }
      // OpenAI's own tokenizer where its encoding is known (loaded only then), else the approximation.
      const estimate = window === undefined ? undefined : yield* Counting.estimatorFor(resolved.success)
      const compaction = window === undefined ? undefined : { window, estimate, summarize: options.summarize === true }
      const model = yield* Effect.try({
        try: () =>
          AiSdkModel.layer(Providers.languageModel(resolved.success), {
            ...Providers.modelOptions(resolved.success),
            ...(spending === undefined ? {} : { maxOutputTokens: spending.maxOutputTokens })
          }),
        catch: (error) => (error instanceof Error ? error.message : String(error))
      }).pipe(Effect.catch(usage))
      const files = yield* Effect.catch(TreeFiles.make(options.root), (error) =>
        usage(`--root ${options.root}: ${error.message}`)
      )
      const commands = yield* commandsOf(options)
      if (options.engine === "postgres" || options.databaseUrl !== undefined) {
        return yield* durable(options, { resolved: resolved.success, policy, spending, maxTurns, files, commands })
      }
      const journal =
        options.journal === undefined
          ? []
          : [
              Journal.middleware(
                yield* Effect.catch(SqliteStore.make(options.journal), (error) => usage(`--journal ${error.message}`))
              )
            ]
      const parking = yield* parkingOf(options)
      const gate = yield* Effect.catch(
        Gate.make({
          policy,
          untrustedOutput: options.untrustedOutput,
          // A parked call waits for its answer however long it takes.
          ...(parking === undefined ? {} : { approvalTimeout: Infinity })
        }),
        (error) => usage(`the policy: ${error.message}`)
      )
      const trace =
        options.trace === undefined
          ? Context.empty()
          : yield* Effect.catch(Layer.build(Trace.jsonl(options.trace)), (error) =>
              usage(`--trace ${options.trace}: ${error.message}`)
            )
      const mounted = yield* mountAll(servers)
      // Globs judged against the tools this run really has: the locale's file tools and the mounted ones.
      const names = [
        ...FileTools.forLocale(options.lang).tools,
        ...(commands?.toolset.tools ?? []),
        ...mounted.toolset.tools
      ].map((tool) => tool.name)
      for (const line of AgentPolicy.warnings(policy, names)) yield* Console.error(line)
      const asking =
        parking === undefined ? AgentApprover.make(AgentApprover.terminalOf(process)) : AgentApprover.recording(parking)
      return yield* session(
        options,
        { policy, maxTurns, mounted, files, spending, compaction, commands },
        asking.answers
      ).pipe(
        Effect.provide(trace),
        Effect.provide(model),
        Effect.provideService(Execute.Middleware, Execute.compose(gate, ...journal, ...mounted.outcomes)),
        Effect.provideService(Approver.Approver, asking.approver),
        Effect.provideService(Files.Files, files),
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.byLocale[options.lang]),
        Effect.provide(Logger.layer([Warnings.stderrOnce("agent")]))
      )
    })
  )

/** What the system prompt says of the command tools, in each language (the same words as `agent/Commands.ts`). */
const commandsPrompt: Readonly<Record<FileTools.Locale, (network: boolean) => string>> = {
  en: (network) =>
    `You can also run programs in that folder with the command tool, inside a sandbox: the folder is the only place you can write, ${network ? "the network is available" : "there is no network"}, and a command that runs too long is stopped. A non-zero exit code is an error you read.`,
  es: (network) =>
    `También puedes ejecutar programas en esa carpeta con la herramienta comando, dentro de un entorno aislado: la carpeta es el único sitio donde puedes escribir, ${network ? "hay red" : "no hay red"}, y un comando que tarda demasiado se detiene. Un código de salida distinto de cero es un error que lees.`
}

/**
 * `--commands` and the flags that go with it, checked: the command tools over a sandbox on
 * `--root` (the command package loaded only then), or `undefined` without `--commands`. A
 * sandbox flag without `--commands`, or no sandbox here, is exit 2 (never run unsandboxed).
 */
const commandsOf = (options: Options): Effect.Effect<AgentCommands.Offered | undefined, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    if (options.commands !== true) {
      const stray = [
        ["--shell", options.shell === true],
        ["--network", options.network === true],
        ["--command-env", (options.commandEnv?.length ?? 0) > 0],
        ["--command-timeout", options.commandTimeout !== undefined],
        ["--command-memory", options.commandMemory !== undefined]
      ] as const
      for (const [flag, given] of stray) if (given) return yield* usage(`${flag} goes with --commands: add --commands`)
      return undefined
    }
    const offering = yield* Effect.promise(() => import("../agent/Commands.ts"))
    return yield* Effect.catch(
      offering.offer(
        {
          root: options.root,
          lang: options.lang,
          shell: options.shell === true,
          network: options.network === true,
          env: options.commandEnv ?? [],
          timeout: options.commandTimeout,
          memory: options.commandMemory
        },
        process.env
      ),
      usage
    )
  })

/**
 * `--engine postgres`: the flags it does not take refused (exit 2), then the conversation on the
 * durable engine (`agent/Durable.ts`, loaded only here).
 */
const durable = (
  options: Options,
  setup: {
    readonly resolved: Providers.Resolved
    readonly policy: Policy.Policy
    readonly spending: Budgets.Spending | undefined
    readonly maxTurns: number
    readonly files: Files.FilesShape
    readonly commands: AgentCommands.Offered | undefined
  }
): Effect.Effect<void, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    if (options.engine !== "postgres")
      return yield* usage("--database-url is for --engine postgres: add it, or drop --database-url")
    const refused: ReadonlyArray<readonly [string, boolean]> = [
      ["--journal (the engine journals every call in its database)", options.journal !== undefined],
      ["--park (on the engine every asked call is parked)", options.park === true],
      ["--trace", options.trace !== undefined],
      [
        "--mcp, --mcp-url and --mcp-config",
        options.mcp.length + options.mcpUrl.length + (options.mcpConfig?.length ?? 0) > 0
      ],
      ["--context-window and --summarize", options.contextWindow !== undefined || options.summarize === true]
    ]
    for (const [flag, given] of refused) {
      if (given) return yield* usage(`${flag} is not taken with --engine postgres`)
    }
    if (options.session !== undefined && (options.session.trim() === "" || options.session.length > 200)) {
      return yield* usage(`--session ${JSON.stringify(options.session)}: a name of 1 to 200 characters`)
    }
    const postgres = yield* Effect.promise(() => import("../engine/Postgres.ts"))
    const url = yield* postgres.databaseUrl(options.databaseUrl, "harness agent --engine postgres")
    const { run } = yield* Effect.promise(() => import("../agent/Durable.ts"))
    const style = Style.current()
    const tools =
      setup.commands === undefined
        ? systemPrompt[options.lang]
        : `${systemPrompt[options.lang]} ${commandsPrompt[options.lang](setup.commands.settings.network)}`
    const system = options.untrustedOutput
      ? `${tools}\n${yield* Effect.provideService(Untrusted.notice, MessageCatalog.MessageCatalog, MessageCatalog.byLocale[options.lang])}`
      : tools
    const w = Transcript.words[options.lang]
    return yield* run({
      url,
      session: options.session,
      model: setup.resolved,
      policy: setup.policy,
      untrustedOutput: options.untrustedOutput,
      maxTurns: setup.maxTurns,
      spending: setup.spending,
      toolset: Toolset.merge(FileTools.forLocale(options.lang), setup.commands?.toolset ?? Toolset.make()),
      files: setup.files,
      system,
      prompt: options.prompt,
      show: (outcome) => Transcript.observationLine(outcome, style),
      words: { answer: w.answer, stop: w.stop }
    })
  })

/**
 * `--park` and `--session`, checked: the parking approver over the `--journal` file's approvals
 * (its waits said on stderr, with how to answer), or `undefined` without `--park`.
 */
const parkingOf = (options: Options): Effect.Effect<Approver.Approver | undefined, ExitCode.ExitCode, Scope.Scope> =>
  Effect.gen(function* () {
    if (options.park !== true) {
      if (options.session !== undefined) {
        return yield* usage("--session names the session of parked calls: add --park (or --engine postgres)")
      }
      return undefined
    }
    if (options.journal === undefined) {
      return yield* usage(
        "--park parks asked calls in the journal file, where harness approve reads them: add --journal FILE"
      )
    }
    const session = options.session ?? `agent-${randomBytes(6).toString("hex")}`
    if (session.trim() === "" || session.length > 200) {
      return yield* usage(`--session ${JSON.stringify(session)}: a name of 1 to 200 characters`)
    }
    const store = yield* Effect.catch(SqliteStore.approvals(options.journal), (error) =>
      usage(`--journal ${error.message}`)
    )
    const file = JSON.stringify(options.journal)
    yield* Console.error(
      Report.printable(
        `harness agent: session ${session}: calls the policy asks about wait in ${options.journal} for harness approve`
      )
    )
    return Parked.approver({
      store,
      session,
      onParked: (approval) =>
        Console.error(
          Report.printable(
            `harness agent: call ${approval.toolUseId} (${approval.name} ${approval.input.length > 200 ? `${approval.input.slice(0, 200)}…` : approval.input}) waits for approval ${approval.id}: harness approve ${approval.id} --journal ${file}, or harness deny ${approval.id} --journal ${file} --reason "…"`
          )
        )
    })
  })

/** The summary's output cap when neither `--max-output-tokens` nor the model gives one. */
const summaryCap = 2048

/**
 * The loop's compaction: the default strategy, or with `--summarize` the turns before the last
 * two summarized by the run's own model (its calls drawn from the run's spend), then, if still
 * over, old tool results elided and the oldest turns dropped.
 */
const compactor = (
  compaction: {
    readonly window: number
    readonly estimate: Estimate.Estimator | undefined
    readonly summarize: boolean
  },
  model: Model.Shape,
  spending: Budgets.Spending | undefined
): Loop.Compact =>
  Compactor.make({
    window: compaction.window,
    estimate: compaction.estimate,
    ...(compaction.summarize
      ? {
          strategy: Strategy.chain(
            Strategy.summarize({
              summarize: Summarizer.make({
                model,
                maxOutputTokens: spending?.maxOutputTokens ?? model.maxOutputTokens ?? summaryCap
              }),
              keepLast: 2
            }),
            Strategy.elideToolResults({ keepLast: 1 }),
            Strategy.dropOldestTurns({ keepFirstUser: true })
          )
        }
      : {})
  })

/**
 * The conversation itself, once everything it needs is in place; `answers` is what the person
 * at the terminal answered, as it grows.
 */
const session = (
  options: Options,
  setup: {
    readonly policy: Policy.Policy
    readonly maxTurns: number
    readonly mounted: {
      readonly toolset: Toolset.Toolset<Tool.Any>
      readonly declared: ReadonlyArray<Mounter.Declaration>
    }
    readonly files: Files.FilesShape
    readonly spending: Budgets.Spending | undefined
    readonly commands: AgentCommands.Offered | undefined
    readonly compaction:
      | {
          readonly window: number
          readonly estimate: Estimate.Estimator | undefined
          readonly summarize: boolean
        }
      | undefined
  },
  answers: ReadonlyArray<Approver.ScriptedAnswer>
) =>
  Effect.gen(function* () {
    const style = Style.current()
    const w = Transcript.words[options.lang]
    const tracing = options.trace !== undefined
    const note = (key: string, value: unknown) =>
      tracing ? Trace.record({ type: "trace.annotated", key, value }) : Effect.void
    const keys = Conversation.annotations
    yield* note(keys.locale, options.lang)
    if (tracing) yield* note(keys.files, yield* setup.files.snapshot)
    yield* note(keys.policy, setup.policy)
    if (options.untrustedOutput) yield* note(keys.untrustedOutput, true)
    if (setup.mounted.declared.length > 0) yield* note(keys.mcp, setup.mounted.declared)
    if (setup.commands !== undefined) yield* note(keys.commands, Commands.wire(setup.commands.settings))
    const tools =
      setup.commands === undefined
        ? systemPrompt[options.lang]
        : `${systemPrompt[options.lang]} ${commandsPrompt[options.lang](setup.commands.settings.network)}`
    const system = options.untrustedOutput ? `${tools}\n${yield* Untrusted.notice}` : tools
    const messages = [Message.system(system), Message.user(options.prompt)]
    yield* Transcript.opening(messages, style)
    // A running tool's progress on stderr, as it comes (never to the model).
    const traced = AgentProgress.tee(yield* Trace.Trace, (text) => process.stderr.write(text))
    const streamed = options.stream ?? true
    const compact =
      setup.compaction === undefined ? undefined : compactor(setup.compaction, yield* Model.Model, setup.spending)
    const loop = {
      toolset: Toolset.merge(
        Toolset.merge(FileTools.forLocale(options.lang), setup.commands?.toolset ?? Toolset.make()),
        setup.mounted.toolset
      ),
      messages,
      maxTurns: setup.maxTurns,
      ...(setup.spending === undefined
        ? {}
        : { spend: setup.spending.spend, maxOutputTokens: setup.spending.maxOutputTokens }),
      ...(compact === undefined ? {} : { compact })
    }
    const played = yield* Effect.result(
      (streamed
        ? live(
            loop,
            Live.make(options.lang, style, (text) => process.stdout.write(text))
          )
        : Loop.run({ ...loop, onTurn: (turn) => Transcript.turn(turn, options.lang, style) })
      ).pipe(Effect.provideService(Trace.Trace, traced))
    )
    if (answers.length > 0) yield* note(keys.approvals, answers)
    if (tracing) yield* note(keys.finalFiles, yield* setup.files.snapshot)
    if (Result.isFailure(played)) {
      const error = played.failure
      if (error._tag === "InvalidOption") return yield* usage(error.message)
      yield* Console.error(`harness agent: the model failed: ${error.message}`)
      return yield* ExitCode.failed
    }
    const result = played.success
    const last = result.turns.at(-1)
    yield* Console.log("")
    // Streamed, the last turn's header, reasoning and text are on the screen already.
    if (!streamed) yield* Console.log(Transcript.header(result.turns.length, options.lang, style))
    if (!streamed && result.stop === "end" && last !== undefined) {
      yield* Transcript.reasoning(last.reply, options.lang, style)
    }
    // An interrupted reply's text stays as it was written; it is no answer.
    if (result.stop === "interrupted") yield* Console.log(w.interrupted)
    else if (result.text !== undefined) yield* Console.log(`${w.answer}: ${Transcript.printable(result.text)}`)
    yield* Console.log(`${w.stop}: ${result.stop}`)
    const tokens = usageLine(result.turns)
    if (tokens !== undefined) yield* Console.log(style.dim(tokens))
    if (result.spend !== undefined) yield* Console.log(style.dim(Budgets.spentLine(result.spend)))
    if (result.stop === "end") return
    if (result.stop === "interrupted") return yield* ExitCode.interrupted
    yield* Console.error(
      result.stop === "turn_cap"
        ? `harness agent: the model did not finish within ${setup.maxTurns} model calls (--max-turns)`
        : result.stop === "token_budget" || result.stop === "cost_budget"
          ? `harness agent: stopped before a model call that could pass ${result.stop === "cost_budget" ? "--cost-budget" : "--token-budget"} (its prompt and --max-output-tokens at most); nothing past the budget was spent`
          : result.stop === "context_window"
            ? "harness agent: the history could not be compacted under --context-window (the system and first user messages and the last turn are always kept); the request was not sent"
            : `harness agent: the run stopped (${result.stop}) before the model finished`
    )
    return yield* ExitCode.failed
  })

/**
 * The loop streamed and printed as it goes (`printer`), its result folded from the stream
 * (`Loop.fold`). For its length Ctrl-C is the loop's `interrupt` (`Signal.interruptOnSigint`);
 * whatever way it ends, a line left open is ended.
 */
const live = <T extends Tool.Any>(loop: Loop.Options<T>, printer: Live.Printer) =>
  Effect.scoped(
    Effect.gen(function* () {
      const ctrlC = yield* Signal.interruptOnSigint()
      return yield* Loop.fold(Stream.tap(Loop.stream({ ...loop, interrupt: ctrlC.requested }), printer.print))
    })
  ).pipe(Effect.ensuring(printer.close))
