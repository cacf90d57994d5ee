/**
 * Renderers of a plan diff for people and machines: plain text lines, the same lines with ANSI
 * colours (removed struck through, added highlighted), and the JSON of the diff. Text renderers
 * take both plans, so a revised step shows its old and new form.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { type DiffableStep, PlanDiff } from "./PlanDiff.ts"

/**
 * The options of {@link render}.
 *
 * @since 0.1.0
 */
export interface RenderOptions {
  /** Whether to emit ANSI escapes; see {@link shouldColor}. */
  readonly color: boolean
}

type Kind = "removed" | "revised" | "added"

interface Line {
  readonly kind: Kind
  readonly text: string
}

const ESC = "\u001b"

const sgr: Record<Kind, string> = {
  // SGR 9 (crossed out) + 31 (red)
  removed: `${ESC}[9;31m`,
  // SGR 33 (yellow)
  revised: `${ESC}[33m`,
  // SGR 1 (bold) + 32 (green)
  added: `${ESC}[1;32m`
}

const reset = `${ESC}[0m`

const noChange = "(no change)"

const ascending = (a: number, b: number): number => a - b

const sorted = (ids: ReadonlyArray<number>): Array<number> => [...ids].sort(ascending)

/** Last occurrence wins, as in `PlanDiff.diff`. */
const byId = (plan: Iterable<DiffableStep>): Map<number, DiffableStep> => {
  const map = new Map<number, DiffableStep>()
  for (const step of plan) map.set(step.id, step)
  return map
}

const formatArgs = (args: unknown): string => {
  try {
    const json = JSON.stringify(args)
    if (json !== undefined) return json
  } catch {
    // A cycle or a bigint: fall through to a best-effort description.
  }
  return typeof args === "object" && args !== null ? Object.prototype.toString.call(args) : String(args)
}

/** `tool {"compact":"json"}` with keys in their original order; `?` when the plan lacks the id. */
const formatStep = (step: DiffableStep | undefined): string =>
  step === undefined ? "?" : `${step.tool_name} ${formatArgs(step.args)}`

const lines = (diff: PlanDiff, before: Iterable<DiffableStep>, after: Iterable<DiffableStep>): Array<Line> => {
  const old = byId(before)
  const next = byId(after)
  const out: Array<Line> = []
  for (const id of sorted(diff.removed)) {
    out.push({ kind: "removed", text: `- ${id} ${formatStep(old.get(id))}` })
  }
  for (const id of sorted(diff.revised)) {
    out.push({ kind: "revised", text: `~ ${id} ${formatStep(old.get(id))} → ${formatStep(next.get(id))}` })
  }
  for (const id of sorted(diff.added)) {
    out.push({ kind: "added", text: `+ ${id} ${formatStep(next.get(id))}` })
  }
  return out
}

/**
 * Plain text, one line per changed step, joined by `\n` (no trailing newline): removed steps
 * (`- 3 read {"path":"a"}`), then revised steps, old → new (`~ 4 read {"path":"a"} → read {"path":"b"}`),
 * then added steps (`+ 6 write {...}`), each group sorted by id. Args are compact JSON with keys
 * in their original order. A step missing from its plan shows as `?`. An empty diff gives `(no change)`.
 *
 * @since 0.1.0
 */
export const text = (diff: PlanDiff, before: Iterable<DiffableStep>, after: Iterable<DiffableStep>): string => {
  const out = lines(diff, before, after)
  return out.length === 0 ? noChange : out.map((line) => line.text).join("\n")
}

/**
 * The lines of {@link text} with ANSI colours, each line wrapped in its SGR code and a reset:
 * removed steps struck through and red (`ESC[9;31m`), revised steps yellow (`ESC[33m`),
 * added steps bold green (`ESC[1;32m`). Without the escapes it is exactly {@link text}.
 *
 * @since 0.1.0
 */
export const ansi = (diff: PlanDiff, before: Iterable<DiffableStep>, after: Iterable<DiffableStep>): string => {
  const out = lines(diff, before, after)
  return out.length === 0 ? noChange : out.map((line) => `${sgr[line.kind]}${line.text}${reset}`).join("\n")
}

/**
 * {@link ansi} when `options.color` is true, {@link text} otherwise.
 *
 * @since 0.1.0
 */
export const render = (
  diff: PlanDiff,
  before: Iterable<DiffableStep>,
  after: Iterable<DiffableStep>,
  options: RenderOptions
): string => (options.color ? ansi(diff, before, after) : text(diff, before, after))

/**
 * Whether output to `stream` should be coloured: only when the stream is a TTY and `NO_COLOR`
 * is unset or empty (https://no-color.org). Pass `process.stdout` and `process.env`.
 *
 * @since 0.1.0
 */
export const shouldColor = (
  stream: { readonly isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>>
): boolean => {
  const noColor = env.NO_COLOR
  if (noColor !== undefined && noColor !== "") return false
  return stream.isTTY === true
}

/**
 * The JSON text of the diff, compact, in the encoded form of the `PlanDiff` schema:
 * `{"removed":[...],"added":[...],"revised":[...]}`. Throws a `SchemaError` if an id is not an integer.
 *
 * @since 0.1.0
 */
export const json = (diff: PlanDiff): string => JSON.stringify(Schema.encodeSync(PlanDiff)(diff))
