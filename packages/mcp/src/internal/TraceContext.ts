/**
 * W3C Trace Context across MCP, both ways, as text: a `tools/call` we send carries the current
 * span as `_meta.traceparent` (and `_meta.tracestate` when one came in), and a `tools/call` we
 * serve whose `_meta.traceparent` is valid runs under that remote parent. No OpenTelemetry:
 * Effect's spans have a trace id, a span id and a sampled flag, which is all a traceparent says.
 * Anything that is not a valid version-00 traceparent is ignored (the call is a new trace).
 */
import { Context, Effect, Option, References, Tracer } from "effect"

/** The `_meta` key of the W3C `traceparent`. */
export const traceparentKey = "traceparent"

/** The `_meta` key of the W3C `tracestate`. */
export const tracestateKey = "tracestate"

/** A remote span, as a valid traceparent (and tracestate) names it. */
export interface Remote {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string
  /** 16 lowercase hex digits, not all zero. */
  readonly spanId: string
  /** The traceparent's sampled flag. */
  readonly sampled: boolean
  /** The tracestate that came with it, when it was a plausible one. */
  readonly traceState: string | undefined
}

const traceIdPattern = /^[0-9a-f]{32}$/
const spanIdPattern = /^[0-9a-f]{16}$/
const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
/** The longest tracestate passed on (W3C: 32 members of at most 256 characters; 512 is what vendors are asked to keep). */
const maxTraceState = 512
const traceStatePattern = /^[\x20-\x7e]*$/

const validTraceId = (id: string): boolean => traceIdPattern.test(id) && id !== "0".repeat(32)
const validSpanId = (id: string): boolean => spanIdPattern.test(id) && id !== "0".repeat(16)

/** A tracestate worth passing on: printable ASCII, not empty, bounded. */
const traceStateOf = (value: unknown): string | undefined =>
  typeof value === "string" && value.length <= maxTraceState && value.trim() !== "" && traceStatePattern.test(value)
    ? value
    : undefined

/**
 * The remote span a request's `_meta` names, or `undefined` when it names none validly: no
 * traceparent, a version other than `00`, wrong lengths, uppercase, all-zero ids, a value that
 * is not a string, a getter that throws.
 */
export const parse = (meta: unknown): Remote | undefined => {
  try {
    if (typeof meta !== "object" || meta === null) return undefined
    const given: unknown = (meta as Record<string, unknown>)[traceparentKey]
    if (typeof given !== "string" || given.length !== 55) return undefined
    const match = traceparentPattern.exec(given)
    if (match === null) return undefined
    const [, traceId, spanId, flags] = match as unknown as readonly [string, string, string, string]
    if (!validTraceId(traceId) || !validSpanId(spanId)) return undefined
    let traceState: string | undefined
    try {
      traceState = traceStateOf((meta as Record<string, unknown>)[tracestateKey])
    } catch {
      traceState = undefined
    }
    return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1, traceState }
  } catch {
    return undefined
  }
}

/** The tracestates of the remote parents made here, for a call sent on under them. */
const traceStates = new WeakMap<Tracer.AnySpan, string>()

/** The remote span as a parent for Effect's tracer. */
export const externalSpan = (remote: Remote): Tracer.ExternalSpan => {
  const span = Tracer.externalSpan({ traceId: remote.traceId, spanId: remote.spanId, sampled: remote.sampled })
  if (remote.traceState !== undefined) traceStates.set(span, remote.traceState)
  return span
}

/**
 * Runs `effect` under the remote parent `meta` names (`_meta.traceparent`), or as it is when
 * it names none validly.
 */
export const withRemoteParent = <A, E, R>(meta: unknown, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const remote = parse(meta)
  return remote === undefined ? effect : Effect.withParentSpan(effect, externalSpan(remote))
}

/** The tracestate of the remote parent `span` descends from in this trace, if it brought one. */
const traceStateAbove = (span: Tracer.AnySpan): string | undefined => {
  let current: Tracer.AnySpan | undefined = span
  // Bounded: a span's ancestry is finite, but a cycle would not be.
  for (let depth = 0; current !== undefined && depth < 1_000; depth++) {
    const state = traceStates.get(current)
    if (state !== undefined) return current.traceId === span.traceId ? state : undefined
    current = current._tag === "Span" ? Option.getOrUndefined(current.parent) : undefined
  }
  return undefined
}

/** The `_meta` entries that carry `span`: a traceparent (and tracestate), or none when its ids are not W3C's. */
export const metaOf = (span: Tracer.AnySpan): Record<string, string> => {
  const { traceId, spanId } = span
  if (typeof traceId !== "string" || typeof spanId !== "string") return {}
  if (!validTraceId(traceId) || !validSpanId(spanId)) return {}
  const traceparent = `00-${traceId}-${spanId}-${span.sampled ? "01" : "00"}`
  const traceState = traceStateAbove(span)
  return traceState === undefined ? { traceparent } : { traceparent, tracestate: traceState }
}

/**
 * The `_meta` entries for a call sent now: the current span's traceparent (and tracestate)
 * when tracing is enabled and there is a current span; none otherwise.
 */
export const outgoing: Effect.Effect<Record<string, string>> = Effect.withFiber((fiber) => {
  if (!fiber.getRef(References.TracerEnabled)) return Effect.succeed({})
  const span = Context.getOption(fiber.context, Tracer.ParentSpan)
  return Effect.succeed(Option.isSome(span) ? metaOf(span.value) : {})
})
