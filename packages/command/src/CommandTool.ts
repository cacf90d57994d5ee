/**
 * The command tools over a detected `Sandbox`: `command {program, args?}` (Spanish
 * `comando {programa, argumentos?}`) runs a program with its arguments, no shell involved; and,
 * only when the options enable it, `shell {line}` (`consola {línea}`) runs a line with
 * `/bin/sh -c`. Both run inside the sandbox over the root folder.
 *
 * The model reads the exit code, stdout and stderr (`exit code 0\nstdout:\n…\nstderr: (empty)`),
 * each stream cut at the policy's cap with a marker line (`… 12,345 more bytes not shown`), a
 * binary stream as `(binary output, 4,096 bytes, not shown)`. A zero exit is a success; a
 * non-zero exit is the typed failure `CommandFailed` (the same text, `is_error: true`); a
 * timeout is `CommandTimedOut`, whose text says the command and everything it started were
 * killed and that its outcome is unknown. Beside the text, the tools give structured content
 * (`Report`, snake_case) for a viewer.
 *
 * A command is not idempotent unless the tool says so (`idempotent: true`), so a retry-safety
 * layer never repeats one whose outcome is unknown.
 *
 * @since 0.1.0
 */
import { Localized, MessageCatalog, Tool, ToolContent, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Effect, Schema } from "effect"
import { byteLength } from "./internal/capture.ts"
import * as CommandInput from "./internal/command.ts"
import * as ToolWords from "./internal/toolWords.ts"
import * as Sandbox from "./Sandbox.ts"

/**
 * The languages the tools speak.
 *
 * @since 0.1.0
 */
export type Locale = Localized.Locale

// The structured content.

/**
 * The Schema of the structured content of a call (snake_case, as on the wire): the exit code,
 * the signal, whether it timed out, each stream's text kept, byte count, whether it was cut and
 * whether it was binary, and `binary` when either was.
 *
 * @since 0.1.0
 */
export const Report: Schema.Struct<{
  readonly exit_code: Schema.NullOr<Schema.Int>
  readonly signal: Schema.NullOr<Schema.String>
  readonly timed_out: Schema.Boolean
  readonly stdout: Schema.String
  readonly stderr: Schema.String
  readonly stdout_bytes: Schema.Int
  readonly stderr_bytes: Schema.Int
  readonly stdout_truncated: Schema.Boolean
  readonly stderr_truncated: Schema.Boolean
  readonly stdout_binary: Schema.Boolean
  readonly stderr_binary: Schema.Boolean
  readonly binary: Schema.Boolean
}> = Schema.Struct({
  exit_code: Schema.NullOr(Schema.Int),
  signal: Schema.NullOr(Schema.String),
  timed_out: Schema.Boolean,
  stdout: Schema.String,
  stderr: Schema.String,
  stdout_bytes: Schema.Int,
  stderr_bytes: Schema.Int,
  stdout_truncated: Schema.Boolean,
  stderr_truncated: Schema.Boolean,
  stdout_binary: Schema.Boolean,
  stderr_binary: Schema.Boolean,
  binary: Schema.Boolean
})

/**
 * What a call did, as structured content.
 *
 * @since 0.1.0
 */
export type Report = typeof Report.Type

/**
 * The structured content of what a command did.
 *
 * @since 0.1.0
 */
export const report = (completed: Sandbox.Completed): Report => ({
  exit_code: completed.exitCode,
  signal: completed.signal,
  timed_out: completed.timedOut,
  stdout: completed.stdout.text,
  stderr: completed.stderr.text,
  stdout_bytes: completed.stdout.bytes,
  stderr_bytes: completed.stderr.bytes,
  stdout_truncated: completed.stdout.truncated,
  stderr_truncated: completed.stderr.truncated,
  stdout_binary: completed.stdout.binary,
  stderr_binary: completed.stderr.binary,
  binary: completed.stdout.binary || completed.stderr.binary
})

// Failures.

const CommandFailedBase: Schema.Class<
  CommandFailed,
  Schema.TaggedStruct<
    "CommandFailed",
    { readonly completed: typeof Sandbox.Completed; readonly message: Schema.String }
  >,
  Cause.YieldableError
> = Schema.TaggedError<CommandFailed>()("CommandFailed", {
  completed: Sandbox.Completed,
  message: Schema.String
})

/**
 * The command ran and exited with a non-zero code (or was killed by a signal). Its `message` is
 * the observation text, in the tool's language: `exit code 2\nstdout: (empty)\nstderr:\n…`.
 *
 * @since 0.1.0
 */
export class CommandFailed extends CommandFailedBase {}

const CommandTimedOutBase: Schema.Class<
  CommandTimedOut,
  Schema.TaggedStruct<
    "CommandTimedOut",
    {
      readonly completed: typeof Sandbox.Completed
      readonly timeoutMs: Schema.Int
      readonly message: Schema.String
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<CommandTimedOut>()("CommandTimedOut", {
  completed: Sandbox.Completed,
  timeoutMs: Schema.Int,
  message: Schema.String
})

/**
 * The command ran past the policy's timeout: it and every process it started were killed. It
 * may have done part of its work, so its outcome is unknown. Its `message` is the observation
 * text, with the output it gave before.
 *
 * @since 0.1.0
 */
export class CommandTimedOut extends CommandTimedOutBase {}

/**
 * Why a command tool failed: the command failed or timed out, it could not be run (a hostile
 * or impossible value), or the sandbox failed around it.
 *
 * @since 0.1.0
 */
export type Failure = CommandFailed | CommandTimedOut | Sandbox.InvalidCommand | Sandbox.RunFailed

// Texts.

/**
 * The texts the tools return, per locale.
 *
 * @since 0.1.0
 */
export interface Texts {
  /** The first line of a command that exited: `exit code 2`. */
  readonly exitCode: (code: number) => string
  /** The first line of a sandbox killed by a signal: `killed by signal SIGKILL`. */
  readonly killed: (signal: string) => string
  /** The first line of a timeout: `timed out after 60 s: … (outcome unknown: …)`. */
  readonly timedOut: (timeoutMs: number) => string
  /** An empty stream: `(empty)`. */
  readonly empty: string
  /** A binary stream: `(binary output, 4,096 bytes, not shown)`. */
  readonly binary: (bytes: number) => string
  /** The last line of a cut stream: `… 12,345 more bytes not shown`. */
  readonly more: (bytes: number) => string
  /** A command that cannot be run: `not executed: argument 2 contains a NUL character, …`. */
  readonly invalid: (error: Sandbox.InvalidCommand) => string
  /** The sandbox failed around the command. */
  readonly runFailed: (error: Sandbox.RunFailed) => string
}

const spanishPart = (error: Sandbox.InvalidCommand): string => {
  switch (error.part) {
    case "argument":
      return `el argumento ${error.index ?? "?"}`
    case "line":
      return "la línea"
    case "program":
      return "el programa"
    case "command":
      return "el comando"
  }
}

const spanishInvalid = (error: Sandbox.InvalidCommand): string => {
  const what = spanishPart(error)
  const g = (n: number | null): string => ToolWords.grouped(n ?? 0, ".")
  switch (error.kind) {
    case "unreadable":
      return `${what} no se ha podido leer: ${error.detail ?? "leerlo ha fallado"}`
    case "not-command":
      return "el comando debe ser { argv: [programa, ...argumentos] } o { shell: línea }"
    case "not-text":
      return `${what} no es un texto`
    case "nul":
      return `${what} contiene un carácter NUL, que ningún argumento de un programa puede llevar`
    case "empty":
      return `${what} está vacío`
    case "too-long":
      return `${what} ocupa ${g(error.bytes)} bytes, más de los ${g(error.limit)} que puede ocupar un argumento de un programa`
    case "too-large":
      return `el comando es demasiado grande${error.bytes === null ? "" : ` (${g(error.bytes)} bytes)`}: como mucho ${g(error.limit)} bytes de programa y argumentos`
  }
}

/** The tools' texts in English (`exit code 0`). @since 0.1.0 */
export const englishTexts: Texts = {
  exitCode: (code) => `exit code ${code}`,
  killed: (signal) => `killed by signal ${signal}`,
  timedOut: (timeoutMs) =>
    `timed out after ${ToolWords.seconds(timeoutMs, ".")} s: the command and every process it started were killed; it may have done part of its work (outcome unknown: do not repeat it blindly unless it is idempotent)`,
  empty: "(empty)",
  binary: (bytes) => `(binary output, ${ToolWords.grouped(bytes, ",")} bytes, not shown)`,
  more: (bytes) => `… ${ToolWords.grouped(bytes, ",")} more ${bytes === 1 ? "byte" : "bytes"} not shown`,
  invalid: (error) => MessageCatalog.english.notExecuted(CommandInput.describe(error)),
  runFailed: (error) =>
    error.stage === "spawn" || error.stage === "cgroup"
      ? MessageCatalog.english.notExecuted(`the sandbox could not start the command: ${error.problem}`)
      : `the command's ${error.stage} could not be read (${error.problem}); the command was killed and may have done part of its work (outcome unknown: do not repeat it blindly)`
}

/** The tools' texts in Spanish (`código de salida 0`). @since 0.1.0 */
export const spanishTexts: Texts = {
  exitCode: (code) => `código de salida ${code}`,
  killed: (signal) => `terminado por la señal ${signal}`,
  timedOut: (timeoutMs) =>
    `se ha agotado el tiempo tras ${ToolWords.seconds(timeoutMs, ",")} s: se han matado el comando y todos los procesos que inició; puede haber hecho parte de su trabajo (resultado desconocido: no lo repitas sin mirar salvo que sea idempotente)`,
  empty: "(vacío)",
  binary: (bytes) => `(salida binaria, ${ToolWords.grouped(bytes, ".")} bytes, sin mostrar)`,
  more: (bytes) =>
    `… ${ToolWords.grouped(bytes, ".")} ${bytes === 1 ? "byte más sin mostrar" : "bytes más sin mostrar"}`,
  invalid: (error) => MessageCatalog.spanish.notExecuted(spanishInvalid(error)),
  runFailed: (error) =>
    error.stage === "spawn" || error.stage === "cgroup"
      ? MessageCatalog.spanish.notExecuted(`el entorno aislado no ha podido iniciar el comando: ${error.problem}`)
      : `no se ha podido leer el ${error.stage} del comando (${error.problem}); se ha matado el comando y puede haber hecho parte de su trabajo (resultado desconocido: no lo repitas sin mirar)`
}

/** The tool texts of a locale. @since 0.1.0 */
export const textsFor = (locale: string): Texts => Localized.pick({ en: englishTexts, es: spanishTexts }, locale)

/** One stream's lines: `stdout: (empty)`, `stdout:` and its text, a marker when cut, or the binary marker. */
const streamLines = (texts: Texts, name: "stdout" | "stderr", output: Sandbox.Output): ReadonlyArray<string> => {
  if (output.binary) return [`${name}: ${texts.binary(output.bytes)}`]
  if (output.bytes === 0) return [`${name}: ${texts.empty}`]
  const hidden = output.bytes - byteLength(output.text)
  const body = output.text.endsWith("\n") ? output.text.slice(0, -1) : output.text
  return [`${name}:`, ...(output.text === "" ? [] : [body]), ...(hidden > 0 ? [texts.more(hidden)] : [])]
}

/**
 * The observation text of what a command did: the first line (`exit code N`, `killed by signal
 * S`, or `timed out after N s: …`), then stdout and stderr.
 *
 * @since 0.1.0
 */
export const observation = (texts: Texts, completed: Sandbox.Completed, timeoutMs: number): string => {
  const first = completed.timedOut
    ? texts.timedOut(timeoutMs)
    : completed.exitCode !== null
      ? texts.exitCode(completed.exitCode)
      : texts.killed(completed.signal ?? "?")
  return [
    first,
    ...streamLines(texts, "stdout", completed.stdout),
    ...streamLines(texts, "stderr", completed.stderr)
  ].join("\n")
}

// The tools.

/**
 * The program tool's parameters: the program `P` and the optional arguments `A`.
 *
 * @since 0.1.0
 */
export type ProgramParameters<P extends string, A extends string> = Schema.Struct<
  { readonly [K in P]: Schema.String } & { readonly [K in A]: Schema.optionalKey<Schema.$Array<Schema.String>> }
>

/**
 * The shell tool's parameters: the line `L`.
 *
 * @since 0.1.0
 */
export type ShellParameters<L extends string> = Schema.Struct<{ readonly [K in L]: Schema.String }>

/**
 * A program tool: `command` or `comando`.
 *
 * @since 0.1.0
 */
export type ProgramTool<N extends string, P extends string, A extends string> = Tool.Tool<
  N,
  ProgramParameters<P, A>,
  Report,
  Failure,
  never
>

/**
 * A shell tool: `shell` or `consola`.
 *
 * @since 0.1.0
 */
export type ShellTool<N extends string, L extends string> = Tool.Tool<N, ShellParameters<L>, Report, Failure, never>

/**
 * Any of the command tools.
 *
 * @since 0.1.0
 */
export type CommandTool =
  | ProgramTool<"command", "program", "args">
  | ProgramTool<"comando", "programa", "argumentos">
  | ShellTool<"shell", "line">
  | ShellTool<"consola", "línea">

/**
 * How to make the tools.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The sandbox the commands run in, from `Sandbox.detect` (so an unavailable one is refused here). */
  readonly sandbox: Sandbox.Sandbox
  /** The language of the tools' names, fields and texts. */
  readonly locale: Locale
  /** Add the shell tool (`shell` / `consola`), which runs a line with `/bin/sh -c` (default `false`). */
  readonly shell?: boolean | undefined
  /** Say that the commands are safe to repeat (default `false`: a command is not idempotent). */
  readonly idempotent?: boolean | undefined
}

/** A member of the model's input, read once; a throwing getter is `undefined`'s problem, named. */
const field = (input: unknown, name: string): { readonly value: unknown } | { readonly thrown: string } => {
  try {
    return { value: typeof input === "object" && input !== null ? (input as Record<string, unknown>)[name] : undefined }
  } catch (thrown) {
    return { thrown: thrown instanceof Error ? thrown.message : "reading it threw" }
  }
}

const invalid = (part: CommandInput.Part, kind: CommandInput.Kind, detail: string | null): Sandbox.InvalidCommand =>
  new Sandbox.InvalidCommand({ part, index: null, kind, bytes: null, limit: null, detail })

/** The argv of a program tool's input, copied (a Proxy or a throwing getter is an `InvalidCommand`). */
const argvOf = (
  input: unknown,
  program: string,
  args: string
): Effect.Effect<Sandbox.Command, Sandbox.InvalidCommand> => {
  const first = field(input, program)
  if ("thrown" in first) return Effect.fail(invalid("program", "unreadable", first.thrown))
  const rest = field(input, args)
  if ("thrown" in rest) return Effect.fail(invalid("command", "unreadable", rest.thrown))
  if (rest.value === undefined) return Effect.succeed({ argv: [first.value as string] })
  try {
    if (!Array.isArray(rest.value)) return Effect.fail(invalid("command", "not-command", null))
    const values: ReadonlyArray<unknown> = rest.value
    const length = values.length
    if (length > CommandInput.maxCommandBytes / 9) {
      return Effect.fail(
        new Sandbox.InvalidCommand({
          part: "command",
          index: null,
          kind: "too-large",
          bytes: null,
          limit: CommandInput.maxCommandBytes,
          detail: null
        })
      )
    }
    const argv: Array<unknown> = [first.value]
    for (let i = 0; i < length; i++) argv.push(values[i])
    return Effect.succeed({ argv: argv as ReadonlyArray<string> })
  } catch (thrown) {
    return Effect.fail(invalid("command", "unreadable", thrown instanceof Error ? thrown.message : "reading it threw"))
  }
}

/** The line of a shell tool's input. */
const lineOf = (input: unknown, line: string): Effect.Effect<Sandbox.Command, Sandbox.InvalidCommand> => {
  const value = field(input, line)
  return "thrown" in value
    ? Effect.fail(invalid("line", "unreadable", value.thrown))
    : Effect.succeed({ shell: value.value as string })
}

/** Runs a command and answers as the tools do: a zero exit a success, anything else a typed failure. */
const answer = (
  sandbox: Sandbox.Sandbox,
  texts: Texts,
  command: Effect.Effect<Sandbox.Command, Sandbox.InvalidCommand>
): Effect.Effect<Report, Failure> =>
  command.pipe(
    Effect.flatMap((given) => Sandbox.run(sandbox, given)),
    // The tools pass no run options, so there is no option to be invalid.
    Effect.catchTag("InvalidPolicy", (error) => Effect.die(error)),
    Effect.flatMap((completed): Effect.Effect<Report, Failure> => {
      const timeoutMs = sandbox.policy.timeoutMs
      const message = observation(texts, completed, timeoutMs)
      if (completed.timedOut) return Effect.fail(new CommandTimedOut({ completed, timeoutMs, message }))
      if (completed.exitCode !== 0) return Effect.fail(new CommandFailed({ completed, message }))
      return Effect.succeed(report(completed))
    })
  )

/** The observation text of a failure, in the tool's language. */
const failureMessage =
  (texts: Texts) =>
  (error: Failure): string => {
    switch (error._tag) {
      case "CommandFailed":
      case "CommandTimedOut":
        return error.message
      case "InvalidCommand":
        return texts.invalid(error)
      case "RunFailed":
        return texts.runFailed(error)
    }
  }

/** A failure as rich content: its text, and its report as structured content when the command ran. */
const failureContent =
  (texts: Texts) =>
  (error: Failure): ToolContent.Content | undefined =>
    error._tag === "CommandFailed" || error._tag === "CommandTimedOut"
      ? ToolContent.make({ text: failureMessage(texts)(error), structured: report(error.completed) })
      : undefined

/** The text of a success: the observation of its report. */
const successText =
  (texts: Texts, timeoutMs: number) =>
  (value: Report): string =>
    observation(
      texts,
      {
        exitCode: value.exit_code,
        signal: value.signal,
        timedOut: value.timed_out,
        durationMs: 0,
        stdout: {
          text: value.stdout,
          bytes: value.stdout_bytes,
          truncated: value.stdout_truncated,
          binary: value.stdout_binary
        },
        stderr: {
          text: value.stderr,
          bytes: value.stderr_bytes,
          truncated: value.stderr_truncated,
          binary: value.stderr_binary
        }
      },
      timeoutMs
    )

const facts = (policy: Sandbox.Policy): ToolWords.Facts => ({
  root: policy.root,
  network: policy.network,
  timeoutMs: policy.timeoutMs,
  maxOutputBytes: policy.maxOutputBytes
})

const defineProgram = <const N extends string, const P extends string, const A extends string>(
  sandbox: Sandbox.Sandbox,
  texts: Texts,
  words: ToolWords.ProgramWords<N, P, A>,
  annotations: Tool.Annotations
): ProgramTool<N, P, A> =>
  Tool.make<N, ProgramParameters<P, A>, Report, Failure, never>(words.name, {
    description: words.description(facts(sandbox.policy)),
    parameters: Schema.Struct({
      [words.program.name]: Schema.String.annotate({ description: words.program.description }),
      [words.args.name]: Schema.optionalKey(
        Schema.Array(Schema.String).annotate({ description: words.args.description })
      )
    } as { readonly [K in P]: Schema.String } & {
      readonly [K in A]: Schema.optionalKey<Schema.$Array<Schema.String>>
    }),
    fields: { [words.program.name]: "program", [words.args.name]: "arguments" },
    annotations,
    run: (input) => answer(sandbox, texts, argvOf(input, words.program.name, words.args.name)),
    output: Report,
    content: successText(texts, sandbox.policy.timeoutMs),
    failureMessage: failureMessage(texts),
    failureContent: failureContent(texts)
  })

const defineShell = <const N extends string, const L extends string>(
  sandbox: Sandbox.Sandbox,
  texts: Texts,
  words: ToolWords.ShellWords<N, L>,
  annotations: Tool.Annotations
): ShellTool<N, L> =>
  Tool.make<N, ShellParameters<L>, Report, Failure, never>(words.name, {
    description: words.description(facts(sandbox.policy)),
    parameters: Schema.Struct({
      [words.line.name]: Schema.String.annotate({ description: words.line.description })
    } as { readonly [K in L]: Schema.String }),
    fields: { [words.line.name]: "shell" },
    annotations,
    run: (input) => answer(sandbox, texts, lineOf(input, words.line.name)),
    output: Report,
    content: successText(texts, sandbox.policy.timeoutMs),
    failureMessage: failureMessage(texts),
    failureContent: failureContent(texts)
  })

/**
 * The command tools of a locale over a detected sandbox: `command` (or `comando`), and `shell`
 * (or `consola`) when `shell` is true. Their annotations say what a command may do: not
 * read-only, destructive, idempotent only when `idempotent` says so, open-world when the policy
 * grants the network. A value that is not a `Sandbox` throws a `TypeError` at once.
 *
 * @example
 * ```ts
 * import { CommandTool, Sandbox } from "@agent-harness/command"
 * import { Effect } from "effect"
 *
 * const tools = Effect.map(Sandbox.detect({ root: "/work/project" }), (sandbox) =>
 *   CommandTool.make({ sandbox, locale: "en", shell: true })
 * )
 * ```
 *
 * @since 0.1.0
 */
export const make = (options: Options): Toolset.Toolset<CommandTool> => {
  const { sandbox, locale } = options
  if (!Sandbox.isSandbox(sandbox)) {
    throw new TypeError("CommandTool.make: option 'sandbox' must be a Sandbox from Sandbox.detect")
  }
  const annotations: Tool.Annotations = {
    readOnly: false,
    destructive: true,
    idempotent: options.idempotent ?? false,
    openWorld: sandbox.policy.network
  }
  const shell = options.shell ?? false
  if (locale === "es") {
    const texts = spanishTexts
    const words = ToolWords.spanish
    const program = defineProgram(sandbox, texts, words.program, annotations)
    return shell ? Toolset.make(program, defineShell(sandbox, texts, words.shell, annotations)) : Toolset.make(program)
  }
  const texts = englishTexts
  const words = ToolWords.english
  const program = defineProgram(sandbox, texts, words.program, annotations)
  return shell ? Toolset.make(program, defineShell(sandbox, texts, words.shell, annotations)) : Toolset.make(program)
}
