/**
 * A tool: a name, a description, parameters as an Effect Schema struct, MCP-style annotations
 * and a run function. Defined once; the executor runs it, `JsonSchema` describes it to models.
 *
 * @since 0.1.0
 */
import { type Effect, Result, Schema, type SchemaAST, SchemaIssue, SchemaParser } from "effect"
import * as Render from "./Render.ts"
import * as ToolContent from "./ToolContent.ts"

/**
 * What a tool may do to its environment, with the meanings of MCP's tool annotation hints.
 *
 * @since 0.1.0
 */
export interface Annotations {
  /** A human title, for display. */
  readonly title?: string | undefined
  /** `readOnlyHint`: the tool does not modify its environment. */
  readonly readOnly: boolean
  /** `destructiveHint`: the tool may delete or overwrite (meaningful when not read-only). */
  readonly destructive: boolean
  /** `idempotentHint`: calling it again with the same arguments has no additional effect. */
  readonly idempotent: boolean
  /** `openWorldHint`: the tool reaches outside a closed domain (the web, other systems). */
  readonly openWorld: boolean
}

/**
 * MCP's defaults: not read-only, destructive, not idempotent, open-world. A tool that says
 * nothing is assumed to be the most dangerous kind.
 *
 * @since 0.1.0
 */
export const defaultAnnotations: Annotations = {
  readOnly: false,
  destructive: true,
  idempotent: false,
  openWorld: true
}

/**
 * Whether a repeated call with the same arguments is harmless: read-only tools always are.
 *
 * @since 0.1.0
 */
export const isIdempotent = (tool: Any): boolean => tool.annotations.readOnly || tool.annotations.idempotent

/**
 * What input fields mean, by field name: `{ ruta: "path", carpeta: "folder" }`. The meanings
 * the file tools use are `path`, `folder`, `pattern` and `content`.
 *
 * @since 0.1.0
 */
export type FieldMeanings = { readonly [field: string]: string }

/**
 * What a run function receives besides its decoded input.
 *
 * @since 0.1.0
 */
export interface CallContext {
  /** The `tool_use_id` of the call being answered. */
  readonly id: string
}

/**
 * What a run function may return: an Effect (whose typed failures are the tool's own errors),
 * a promise, or a plain value. Throws and rejections are caught by the executor.
 *
 * @since 0.1.0
 */
export type RunResult<A, E, R> = Effect.Effect<A, E, R> | PromiseLike<A> | A

/**
 * What a tool's parameters may be: an object schema decoding without services — a
 * `Schema.Struct` (the usual case; its fields are checked in declaration order), a
 * `Schema.Record` (any keys, e.g. tools described by a remote JSON Schema), or a
 * `Schema.StructWithRest`.
 *
 * @since 0.1.0
 */
export interface Parameters extends Schema.ConstraintDecoder<object> {
  /** The schema's AST: an object type (the decoder and `JsonSchema` read its fields). */
  readonly ast: SchemaAST.Objects
}

/**
 * A tool whose parameters decode to `P["Type"]`, succeeding with `A`, failing with `E` and
 * needing the services `R`.
 *
 * @since 0.1.0
 */
export interface Tool<out Name extends string, in out P extends Parameters, in out A, in out E, out R> {
  /** The name the model calls it by; unique in a toolset. */
  readonly name: Name
  /** What it does, for the model: sent in its definition. */
  readonly description: string
  /** The Schema its input must pass before it runs. */
  readonly parameters: P
  /** Whether it only reads, is idempotent, may destroy, reaches outside (MCP-style). */
  readonly annotations: Annotations
  /** Runs a decoded call: an Effect, a promise or a plain value. */
  readonly run: (input: P["Type"], context: CallContext) => RunResult<A, E, R>
  /**
   * The observation content of a success; strings as they are, other values as JSON (a tool
   * with an `output` schema: its encoded value, as text and as structured content). A
   * `ToolContent` gives rich parts beside the text.
   */
  readonly content: (value: A) => string | ToolContent.Content
  /** The observation content of a typed failure. */
  readonly failureMessage: (error: E) => string
  /**
   * The run function returns the backend's status envelope `{ status, error_code?, content? }`;
   * the executor reads it with the harness's `ResponseParser` (the tool-response contract).
   */
  readonly envelope: boolean
  /**
   * What some input fields mean, by field name (`{ ruta: "path" }`): rules are written once on
   * the meaning (`path`), whatever a locale spells the field. A field not listed means its name.
   */
  readonly fields: FieldMeanings
  /**
   * The lane its calls run in (`mcp:<server>` for a mounted server's tools): in one turn the
   * loop runs calls of one lane one after another in call order, and different lanes at the
   * same time. No lane: the calls of every tool without one form one lane.
   */
  readonly lane?: string | undefined
  /**
   * The Schema of its success value, when it declares one: the value is encoded with it (JSON)
   * and sent as structured content (MCP's `structuredContent`, described by `outputSchema`).
   */
  readonly output?: Schema.Top | undefined
  /**
   * A typed failure as rich content (an error with images, as an MCP `isError` result may have),
   * or `undefined` for the `failureMessage` text alone.
   */
  readonly failureContent?: ((error: E) => ToolContent.Content | undefined) | undefined
}

/**
 * Any tool, for collections.
 *
 * @since 0.1.0
 */
export interface Any {
  /** The name the model calls it by. */
  readonly name: string
  /** What it does, for the model. */
  readonly description: string
  /** The Schema its input must pass. */
  readonly parameters: Parameters
  /** Its MCP-style annotations. */
  readonly annotations: Annotations
  /** Runs a decoded call. */
  readonly run: (input: never, context: CallContext) => unknown
  /** The observation content of a success: a text, or a `ToolContent` with rich parts. */
  readonly content: (value: never) => string | ToolContent.Content
  /** The observation content of a typed failure. */
  readonly failureMessage: (error: never) => string
  /** Whether the run function returns a status envelope. */
  readonly envelope: boolean
  /**
   * What some input fields mean, by field name (`{ ruta: "path" }`): rules are written once on
   * the meaning (`path`), whatever a locale spells the field. A field not listed means its name.
   */
  readonly fields?: FieldMeanings | undefined
  /**
   * The lane its calls run in (`mcp:<server>` for a mounted server's tools): in one turn the
   * loop runs calls of one lane one after another in call order, and different lanes at the
   * same time. No lane: the calls of every tool without one form one lane.
   */
  readonly lane?: string | undefined
  /** The Schema of its success value (structured content), when it declares one. */
  readonly output?: Schema.Top | undefined
  /** A typed failure as rich content, or `undefined` for the `failureMessage` text alone. */
  readonly failureContent?: ((error: never) => ToolContent.Content | undefined) | undefined
}

/** The services a tool needs. @since 0.1.0 */
export type Services<T> = T extends { readonly run: (...args: never) => infer Out } ? EffectServices<Out> : never

type EffectServices<Out> = Out extends Effect.Effect<infer _A, infer _E, infer R> ? R : never

/**
 * Renders any value as observation text: strings as they are, `undefined` as `""`, other
 * values as JSON, with markers where JSON cannot hold them (see `Render.value`). Never throws.
 *
 * @since 0.1.0
 */
export const renderValue: (value: unknown) => string = Render.value

const defaultFailureMessage = (error: unknown): string => Render.messageOf(error) ?? Render.value(error)

/**
 * The content of a tool with an `output` schema: the value encoded as JSON, as structured
 * content and as its text. A value the schema cannot encode throws, naming the problem (the
 * executor answers it as a failure of the tool).
 */
const structuredContent = (
  output: Schema.Top,
  content: ((value: never) => string | ToolContent.Content) | undefined
): ((value: unknown) => ToolContent.Content) => {
  const encode = SchemaParser.encodeUnknownResult(Schema.toCodecJson(output as Schema.Codec<unknown, unknown>))
  const format = SchemaIssue.makeFormatterDefault()
  return (value) => {
    const encoded = encode(value)
    if (Result.isFailure(encoded)) {
      throw new TypeError(`the tool's result does not match its output schema: ${format(encoded.failure)}`)
    }
    const structured = encoded.success
    if (content === undefined) return ToolContent.make({ text: Render.value(structured), structured })
    const own = (content as (value: unknown) => string | ToolContent.Content)(value)
    return ToolContent.isContent(own)
      ? ToolContent.make({ text: own.text, parts: own.parts, structured, described: own.described })
      : ToolContent.make({ text: own, structured })
  }
}

/**
 * Defines a tool.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool } from "@agent-harness/tool-schema"
 *
 * const Greet = Tool.make("greet", {
 *   description: "Greets someone",
 *   parameters: Schema.Struct({ name: Schema.String }),
 *   annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
 *   run: ({ name }) => Effect.succeed(`hello ${name}`)
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = <const Name extends string, P extends Parameters, A, E = never, R = never>(
  name: Name,
  options: {
    readonly description: string
    readonly parameters: P
    readonly annotations?: Partial<Annotations> | undefined
    readonly run: (input: P["Type"], context: CallContext) => RunResult<A, E, R>
    readonly content?: ((value: A) => string | ToolContent.Content) | undefined
    readonly failureMessage?: ((error: E) => string) | undefined
    /** The run function returns a status envelope, read by the tool-response contract. */
    readonly envelope?: boolean | undefined
    /** What some input fields mean (`{ ruta: "path" }`); a field not listed means its name. */
    readonly fields?: FieldMeanings | undefined
    /** The lane its calls run in (see `Tool.lane`); default none. */
    readonly lane?: string | undefined
    /**
     * The Schema of the success value: the value is encoded with it and sent as structured
     * content; its JSON is the text, unless `content` gives the text.
     */
    readonly output?: Schema.Codec<A, unknown> | undefined
    /**
     * A typed failure as rich content (its text, then its parts), or `undefined` for the
     * `failureMessage` text alone.
     */
    readonly failureContent?: ((error: E) => ToolContent.Content | undefined) | undefined
  }
): Tool<Name, P, A, E, R> => ({
  name,
  description: options.description,
  parameters: options.parameters,
  annotations: { ...defaultAnnotations, ...options.annotations },
  run: options.run,
  content:
    options.output === undefined
      ? (options.content ?? renderValue)
      : structuredContent(
          options.output,
          options.content as ((value: never) => string | ToolContent.Content) | undefined
        ),
  failureMessage: options.failureMessage ?? defaultFailureMessage,
  envelope: options.envelope ?? false,
  fields: options.fields ?? {},
  ...(options.lane === undefined ? {} : { lane: options.lane }),
  ...(options.output === undefined ? {} : { output: options.output }),
  ...(options.failureContent === undefined ? {} : { failureContent: options.failureContent })
})

/**
 * What a tool's input field means: its meaning, or its own name when the tool does not say.
 * Never throws (a tool whose `fields` cannot be read means every field's name).
 *
 * @since 0.1.0
 */
export const meaningOf = (tool: Any, field: string): string => {
  try {
    const fields: unknown = tool.fields
    if (typeof fields !== "object" || fields === null || !Object.hasOwn(fields, field)) return field
    const meaning: unknown = (fields as Record<string, unknown>)[field]
    return typeof meaning === "string" && meaning !== "" ? meaning : field
  } catch {
    return field
  }
}
