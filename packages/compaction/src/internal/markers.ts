/** The texts compaction leaves in a history, and how to recognise them again. */

/** What an elided tool_result's content becomes. */
export const elided = (characters: number, toolName: string | undefined): string =>
  toolName === undefined
    ? `[elided by compaction: ${characters} characters of a tool result]`
    : `[elided by compaction: ${characters} characters of the ${toolName} result]`

const elidedPattern = /^\[elided by compaction: \d+ characters of (?:a tool result|the .* result)\]$/s

/** Whether a tool_result's content is already an elision marker. */
export const isElided = (content: string): boolean =>
  content.startsWith("[elided by compaction: ") && elidedPattern.test(content)

const turns = (count: number): string => `${count} earlier turn${count === 1 ? "" : "s"}`

/** The note left where dropped turns were. */
export const dropped = (count: number): string => `[${turns(count)} removed by compaction]`

const droppedPattern = /^\[(\d+) earlier turns? removed by compaction\]$/

/** How many turns an earlier note says were dropped, or `undefined` when `text` is no such note. */
export const droppedCount = (text: string): number | undefined => {
  const match = droppedPattern.exec(text)
  const count = match === null ? Number.NaN : Number(match[1])
  return Number.isSafeInteger(count) ? count : undefined
}

/** The text block holding a summary of dropped turns. */
export const summary = (count: number, text: string): string => `[${turns(count)} summarized by compaction]\n${text}`
