/**
 * Which items a view shows: turns by search text, errors and tool; report rows by search text,
 * failures and differences between columns. Pure, so it is tested without a browser.
 */
import type { Row, Turn } from "../src/Model.ts"
import { isErrorStatus } from "./Words.ts"

/** A conversation's filters. */
export interface TurnFilter {
  /** Lower-case text to find (empty: any). */
  readonly query: string
  readonly errorsOnly: boolean
  /** A tool name (empty: any). */
  readonly tool: string
}

/** Everything searchable in a turn, lower-cased. */
export const turnText = (turn: Turn): string => {
  const parts: Array<string> = [`turn ${turn.turn}`, ...turn.text, ...turn.reasoning]
  for (const call of turn.calls) {
    parts.push(call.name, call.id, JSON.stringify(call.input) ?? "", call.content ?? "", call.note ?? "")
  }
  if (turn.failed !== null) parts.push(turn.failed)
  for (const event of turn.other) parts.push(event.type, JSON.stringify(event.fields), event.problem ?? "")
  return parts.join("\n").toLowerCase()
}

/** Whether a turn has an error: a call that did not plainly succeed, a model failure, an unreadable event. */
export const hasError = (turn: Turn): boolean =>
  turn.failed !== null ||
  turn.calls.some((c) => isErrorStatus(c.status)) ||
  turn.other.some((e) => e.problem !== undefined)

/**
 * The indexes of the turns a filter keeps. `texts` caches each turn's searchable text (filled
 * on first use: a search over 10,000 turns builds it once).
 */
export const turns = (
  all: ReadonlyArray<Turn>,
  filter: TurnFilter,
  texts: Array<string | undefined>
): ReadonlyArray<number> => {
  const out: Array<number> = []
  for (let i = 0; i < all.length; i++) {
    const turn = all[i]
    if (turn === undefined) continue
    if (filter.errorsOnly && !hasError(turn)) continue
    if (filter.tool !== "" && !turn.calls.some((c) => c.name === filter.tool)) continue
    if (filter.query !== "") {
      let text = texts[i]
      if (text === undefined) {
        text = turnText(turn)
        texts[i] = text
      }
      if (!text.includes(filter.query)) continue
    }
    out.push(i)
  }
  return out
}

/** A report's filters. */
export interface RowFilter {
  readonly query: string
  readonly failingOnly: boolean
  readonly differingOnly: boolean
}

/** Whether a row's columns disagree (a verdict in one, another or none in the other). */
export const differs = (row: Row): boolean => {
  const verdicts = row.cells.map((c) => (c === null ? "none" : c.verdict))
  return verdicts.some((v) => v !== verdicts[0])
}

/** The indexes of the rows a filter keeps. */
export const rows = (all: ReadonlyArray<Row>, filter: RowFilter): ReadonlyArray<number> => {
  const out: Array<number> = []
  for (let i = 0; i < all.length; i++) {
    const row = all[i]
    if (row === undefined) continue
    if (filter.failingOnly && !row.cells.some((c) => c !== null && c.verdict !== "pass")) continue
    if (filter.differingOnly && !differs(row)) continue
    if (filter.query !== "") {
      const text = `${row.name}\n${row.file}\n${row.case ?? ""}\n${row.kind}`.toLowerCase()
      if (!text.includes(filter.query)) continue
    }
    out.push(i)
  }
  return out
}
