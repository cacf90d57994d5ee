/**
 * Random histories for the property test, from a seeded PRNG (mulberry32): the same seed gives
 * the same histories on every machine.
 */
import { Message } from "@agent-harness/executor"

/** A PRNG: each call gives a number in [0, 1). */
export type Random = () => number

/** mulberry32, seeded. */
export const prng = (seed: number): Random => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A whole number in [min, max]. */
export const int = (random: Random, min: number, max: number): number => min + Math.floor(random() * (max - min + 1))

const pick = <A>(random: Random, values: ReadonlyArray<A>): A => values[Math.floor(random() * values.length)] as A

/** Results short and long, ASCII and not (built once: the property test makes many histories). */
const results: ReadonlyArray<string> = [
  "",
  "ok",
  "done: 3 files",
  "error: no such file",
  "x".repeat(60),
  "line of output\n".repeat(20),
  "é€😀 ".repeat(30),
  "0123456789".repeat(100),
  '{"rows":[1,2,3]}'.repeat(60),
  "z".repeat(1500)
]
const texts: ReadonlyArray<string> = [
  "",
  "ok",
  "Let me look.",
  "I will read the file and then write the list.",
  "ñandú ".repeat(10)
]
const tools: ReadonlyArray<string> = ["read", "write", "search", "run_tests"]

/** A random well-formed history: 0–2 system prompts, the task, 0–7 turns of 0–4 tool calls each. */
export const history = (random: Random): ReadonlyArray<Message.Message> => {
  const messages: Array<Message.Message> = []
  const systems = int(random, 0, 2)
  for (let s = 0; s < systems; s++) messages.push(Message.system(s === 0 ? "You are careful." : pick(random, texts)))
  messages.push(
    random() < 0.7
      ? Message.user(pick(random, texts))
      : Message.user([Message.text("Do the task."), Message.text(pick(random, texts))])
  )
  const turns = int(random, 0, 7)
  let id = 0
  for (let t = 0; t < turns; t++) {
    const last = t === turns - 1
    const blocks: Array<Message.ReplyBlock> = []
    if (random() < 0.3)
      blocks.push(
        Message.reasoning(pick(random, texts), random() < 0.5 ? { anthropic: { signature: "sig" } } : undefined)
      )
    if (random() < 0.6) blocks.push(Message.text(pick(random, texts)))
    const calls = int(random, 0, 4)
    const ids: Array<string> = []
    for (let c = 0; c < calls; c++) {
      const call = `toolu_${id++}`
      ids.push(call)
      blocks.push(
        Message.toolUse(
          call,
          pick(random, tools),
          random() < 0.8 ? { path: pick(random, texts) } : { text: pick(random, results) }
        )
      )
    }
    if (blocks.length === 0) blocks.push(Message.text("done"))
    messages.push(Message.assistant(blocks))
    if (calls > 0) {
      messages.push(
        Message.user(
          ids.map((call) =>
            Message.toolResult(
              call,
              pick(random, results),
              random() < 0.2,
              random() < 0.1 ? { structured: { n: 1 } } : undefined
            )
          )
        )
      )
    } else if (!last || random() < 0.5) messages.push(Message.user(pick(random, texts)))
  }
  return messages
}
