/**
 * The conversation of the crash-safety soak: a canned model whose replies depend only on the
 * seed and on how many replies it has given, so every restart of the child asks for the same
 * calls with the same ids. It is full of `append` calls (non-idempotent: the journal marks them
 * started before they run) and `write` calls (idempotent), on separate files, so each append's
 * side effect can be counted in the environment: the append with id `a17` adds `[a17]`.
 *
 * In the commands soak (`withCommands`) the same conversation's appends are made by the `command`
 * tool instead: a sandboxed `sh` appends the call's mark to the same file of the root folder.
 *
 * @since 0.1.0
 */
import { Message, Model } from "@agent-harness/executor"
import { Effect } from "effect"

/**
 * One call of the conversation.
 *
 * @since 0.1.0
 */
export interface Call {
  readonly id: string
  readonly name: "append" | "write"
  readonly input: { readonly path: string; readonly content: string }
}

/**
 * An append made by the `command` tool (the commands soak): `sh -c <script>`, the script
 * appending the call's mark to its file (`commandScript`).
 *
 * @since 0.1.0
 */
export interface CommandCall {
  readonly id: string
  readonly name: "command"
  readonly input: { readonly program: "sh"; readonly args: readonly ["-c", string] }
}

/**
 * The conversation of a seed: its turns, each a list of calls (`Call`s, or in the commands soak
 * `Call`s and `CommandCall`s).
 *
 * @since 0.1.0
 */
export interface Conversation<C extends { readonly id: string } = Call> {
  readonly seed: number
  readonly turns: ReadonlyArray<ReadonlyArray<C>>
}

/**
 * A small seeded generator (mulberry32): numbers in [0, 1).
 *
 * @since 0.1.0
 */
export const random = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A whole number in [min, max]. */
const between = (next: () => number, min: number, max: number): number => min + Math.floor(next() * (max - min + 1))

/**
 * The pattern an append's content carries: `[a17]`. Its count in the environment is how many
 * times the append ran.
 *
 * @since 0.1.0
 */
export const appendMark = /\[(a\d+)\]/g

/**
 * The conversation of a seed: 14 to 22 turns of 3 to 9 calls, about three appends in four.
 *
 * @since 0.1.0
 */
export const conversation = (seed: number): Conversation => {
  const next = random(seed)
  const turns: Array<ReadonlyArray<Call>> = []
  let n = 0
  const turnCount = between(next, 14, 22)
  for (let t = 0; t < turnCount; t++) {
    const calls: Array<Call> = []
    const callCount = between(next, 3, 9)
    for (let c = 0; c < callCount; c++) {
      n += 1
      if (next() < 0.75) {
        const id = `a${n}`
        calls.push({ id, name: "append", input: { path: `log-${between(next, 1, 3)}.txt`, content: `[${id}]\n` } })
      } else {
        const id = `w${n}`
        calls.push({
          id,
          name: "write",
          input: { path: `state-${between(next, 1, 2)}.txt`, content: `state after call ${id} of turn ${t + 1}\n` }
        })
      }
    }
    turns.push(calls)
  }
  return { seed, turns }
}

/**
 * Every call of a conversation, in order.
 *
 * @since 0.1.0
 */
export const calls = <C extends { readonly id: string }>(c: Conversation<C>): ReadonlyArray<C> => c.turns.flat()

/** A text in single quotes for `sh`: `it's` is `'it'\''s'`. */
const quoted = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`

/**
 * The FIFO whose presence tells a command of the commands soak to hold: `.soak-hold-<id>` in the
 * root folder (a name `FlatFiles` never gives a file, and never reads as one).
 *
 * @since 0.1.0
 */
export const holdFifo = (root: string, id: string): string => `${root}/.soak-hold-${id}`

/**
 * The prefix of every hold FIFO's name.
 *
 * @since 0.1.0
 */
export const holdPrefix = ".soak-hold-"

/**
 * The script of an append made by a command, its paths absolute (so the root folder's path is in
 * every sandboxed process's command line, which the soak looks for afterwards): append the mark
 * to the file; then, only when the soak made the call's hold FIFO, open it read-write (so no
 * writer's end ever gives it an end of file) and wait on it until the sandbox is killed.
 *
 * @since 0.1.0
 */
export const commandScript = (root: string, path: string, id: string): string => {
  const fifo = quoted(holdFifo(root, id))
  return `printf '[${id}]\\n' >> ${quoted(`${root}/${path}`)} && if [ -p ${fifo} ]; then exec 3<> ${fifo} && read -r _ <&3; fi`
}

/**
 * The conversation of the commands soak over a root folder (an absolute path): the same calls
 * with the same ids, each append made by the `command` tool (`sh -c`, `commandScript`), each
 * write still a `write`.
 *
 * @since 0.1.0
 */
export const withCommands = (c: Conversation, root: string): Conversation<Call | CommandCall> => ({
  seed: c.seed,
  turns: c.turns.map((calls) =>
    calls.map((call): Call | CommandCall =>
      call.name === "append"
        ? {
            id: call.id,
            name: "command",
            input: { program: "sh", args: ["-c", commandScript(root, call.input.path, call.id)] }
          }
        : call
    )
  )
})

/**
 * The opening messages.
 *
 * @since 0.1.0
 */
export const opening: ReadonlyArray<Message.Message> = [
  Message.system("You keep logs. Use append and write."),
  Message.user("Log every step.")
]

/**
 * The canned model: reply N is turn N's calls, then a final text. It looks only at how many
 * replies the history holds, never at the observations, so a restart replays the same calls.
 *
 * @since 0.1.0
 */
export const model = <C extends { readonly id: string; readonly name: string; readonly input: unknown }>(
  c: Conversation<C>
): Model.Shape =>
  Model.fromReply(({ messages }) =>
    Effect.sync(() => {
      const turn = messages.filter((m) => m.role === "assistant").length
      const calls = c.turns[turn]
      return calls === undefined
        ? [Message.text("All logged.")]
        : calls.map((call) => Message.toolUse(call.id, call.name, call.input))
    })
  )
