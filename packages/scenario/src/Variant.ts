/**
 * Harness variants: named configurations of the harness that a scenario runs under. Today a
 * variant is the tool-response parser: `fixed`, the contract (the default), and `before`, the
 * buggy parser the contract replaced, which takes any response with content as the answer, kept
 * so a regression can be shown failing before it is shown passing.
 *
 * @since 0.1.0
 */
import { ResponseContract } from "@agent-harness/tool-schema"
import { Effect, Layer } from "effect"

/**
 * A named harness configuration.
 *
 * @since 0.1.0
 */
export interface Variant {
  /** Its name (`fixed`, `before`), as `--variant` takes it. */
  readonly name: string
  /** One line for people: what this variant does. */
  readonly summary: string
  /** Its response parser, for the given envelope fields (the defaults when none). */
  readonly parser: (fields?: Partial<ResponseContract.Fields>) => ResponseContract.Parser
}

/**
 * The contract: success only when `status` is `"ok"`. The default.
 *
 * @since 0.1.0
 */
export const fixed: Variant = {
  name: "fixed",
  summary: `the tool-response contract: success only when status is "ok"`,
  parser: ResponseContract.contract
}

/**
 * The `before` parser, the bug the contract fixes: a response with content is the answer,
 * whatever its status.
 *
 * @since 0.1.0
 */
export const before: Variant = {
  name: "before",
  summary: "the bug the contract fixes: a response with content is taken as the answer, whatever its status",
  parser: ResponseContract.contentPresent
}

/**
 * The names the CLI accepts for `--variant`.
 *
 * @since 0.1.0
 */
export const names = ["fixed", "before"] as const

/** A built-in variant's name. @since 0.1.0 */
export type Name = (typeof names)[number]

/** The built-in variants by name. @since 0.1.0 */
export const byName: Readonly<Record<Name, Variant>> = { fixed, before }

/** `fixed`. @since 0.1.0 */
export const defaultVariant: Variant = fixed

/**
 * Runs an effect under a variant: provides its `ResponseParser` (default envelope fields).
 *
 * @since 0.1.0
 */
export const provide =
  (variant: Variant): (<A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(self, ResponseContract.ResponseParser, variant.parser())

/**
 * The variant's `ResponseParser` as a layer.
 *
 * @since 0.1.0
 */
export const layer = (variant: Variant): Layer.Layer<never> =>
  Layer.succeed(ResponseContract.ResponseParser, variant.parser())
