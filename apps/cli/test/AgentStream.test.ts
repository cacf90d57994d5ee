/**
 * `harness agent` streams: the CLI spawned against the loopback fake provider, whose replies
 * trickle out (`Chunking.delayMs`). The model's text is on stdout before the fake has sent its
 * last chunk (the done-when), the streamed run's trace replays with `harness capture` and
 * `harness run`, `--no-stream` asks and prints as before streaming, and Ctrl-C stops a streamed
 * run cleanly: the text so far stays, a line says it was interrupted, no call starts after it,
 * the trace's run ends `interrupted`, exit 130.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { agentArgs, anthropicEnv, agent as runAgent, freshRoots } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { collect, harness, spawnHarness, spawnTimeout } from "./fixtures/harness.ts"
import { type Json, tempFolder } from "./fixtures/scenarios.ts"

/** A few CLI runs, each waiting on a paced stream, on a loaded 2-core machine. */
const SPAWNS = { timeout: 240_000 }

const temp = tempFolder("agent-stream")
afterAll(() => temp.remove())

const start = fakeProviders()

const rootWith = freshRoots(temp, "bread, milk\n")

/** A reply long enough to stream in many paced pieces: 4 characters every 60 ms (about 2.5 s). */
const slowly = { textChars: 4, delayMs: 60 } as const
const answer = "Your list has bread and milk on it, and nothing else that I could see today."

/** A fake whose Anthropic route reads list.txt, then answers (`chunking` as it streams the answer). */
const readThenAnswer = (chunking?: FakeProvider.Chunking) =>
  start({
    anthropic: [
      FakeProvider.reply([Message.toolUse("toolu_1", "read", { path: "list.txt" })]),
      FakeProvider.reply([Message.text(answer)], chunking === undefined ? {} : { chunking })
    ]
  })

/** The trace's events, parsed. */
const eventsOf = (file: string): ReadonlyArray<Json> =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Json)

/**
 * `harness agent ARGS` against `fake`, watched as it runs: `onText` is called once, as soon as
 * stdout shows the model's text (`model: ` and what follows it), with the child to signal.
 */
const watched = (
  fake: FakeProvider.Fake,
  args: ReadonlyArray<string>,
  onText: (child: ReturnType<typeof spawnHarness>) => void
) => {
  const child = spawnHarness([...agentArgs(fake), ...args], anthropicEnv())
  const ended = collect(child, spawnTimeout, `harness agent ${args.join(" ")}`)
  let screen = ""
  let told = false
  child.stdout.on("data", (chunk: string) => {
    screen += chunk
    if (!told && /\nmodel: \S/.test(screen)) {
      told = true
      onText(child)
    }
  })
  return ended
}

describe("harness agent, streamed", () => {
  it(
    "shows the text before the fake has sent its last chunk; the streamed trace captures and replays",
    SPAWNS,
    async () => {
      const fake = await readThenAnswer(slowly)
      const root = rootWith()
      const trace = temp.path("streamed.jsonl")
      let sentWhenShown: number | undefined
      const r = await watched(fake, ["--root", root, "--trace", trace, "What is on my list?"], () => {
        sentWhenShown = fake.streamsSent()
      })
      assert.strictEqual(r.code, 0, r.stderr)
      // The first reply's stream had ended (1); the second's last chunk was not yet sent.
      assert.strictEqual(sentWhenShown, 1, r.stdout)
      assert.strictEqual(fake.streamsSent(), 2)
      const requests = fake.requestsTo("anthropic")
      assert.deepStrictEqual(
        requests.map((request) => (request.json as Json).stream),
        [true, true]
      )
      const lines = r.stdout.replace(/\n$/, "").split("\n")
      expect(lines).toContain(`model calls toolu_1 read({"path":"list.txt"})`)
      expect(lines).toContain("  ok    toolu_1: bread, milk")
      expect(lines).toContain(`model: ${answer}`)
      expect(lines.slice(-3)).toStrictEqual([`final answer: ${answer}`, "stop: end", "tokens: 20 in, 10 out"])
      // The trace says which replies streamed, and replays as an unstreamed one does.
      const replied = eventsOf(trace).filter((event) => event.type === "model.replied")
      assert.deepStrictEqual(
        replied.map((event) => event.streamed),
        [true, true]
      )
      const out = temp.path("streamed-captured.json")
      const captured = harness(["capture", trace, "--out", out])
      assert.strictEqual(captured.code, 0, captured.stderr)
      const replay = harness(["run", out])
      assert.strictEqual(replay.code, 0, replay.stdout + replay.stderr)
    }
  )

  it("--no-stream asks for whole replies and prints each turn once complete, as before streaming", SPAWNS, async () => {
    const fake = await readThenAnswer()
    const trace = temp.path("unstreamed.jsonl")
    const r = await runAgent({
      fake,
      args: ["--root", rootWith(), "--trace", trace, "--no-stream", "What is on my list?"]
    })
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(
      fake.requestsTo("anthropic").map((request) => (request.json as Json).stream),
      [undefined, undefined]
    )
    assert.strictEqual(fake.streamsSent(), 0)
    // Today's transcript: the turn printed whole, then the last turn's header and the final lines.
    const tail = r.lines.slice(r.lines.indexOf("— turn 1 —"))
    assert.deepStrictEqual(tail, [
      "— turn 1 —",
      `model calls toolu_1 read({"path":"list.txt"})`,
      "the model is shown:",
      "  ok    toolu_1: bread, milk",
      "",
      "— turn 2 —",
      `final answer: ${answer}`,
      "stop: end",
      "tokens: 20 in, 10 out"
    ])
    assert.isFalse(
      eventsOf(trace).some((event) => event.type === "model.replied" && "streamed" in event),
      "an unstreamed reply's model.replied says nothing of streaming"
    )
  })

  it(
    "Ctrl-C mid-reply: the text so far stays, it says so, no call starts, the trace ends interrupted, exit 130",
    SPAWNS,
    async () => {
      const long = `${answer} ${answer} ${answer}`
      const fake = await start({
        anthropic: [
          FakeProvider.reply(
            [Message.text(long), Message.toolUse("toolu_w", "write", { path: "list.txt", content: "gone" })],
            { chunking: slowly }
          )
        ]
      })
      const root = rootWith()
      const trace = temp.path("interrupted.jsonl")
      const r = await watched(
        fake,
        ["--root", root, "--trace", trace, "--allow", "write", "Rewrite my list"],
        (child) => {
          child.kill("SIGINT")
        }
      )
      assert.strictEqual(r.code, 130, r.stdout + r.stderr)
      assert.strictEqual(fake.streamsSent(), 0, "the reply was cut before its last chunk")
      const lines = r.stdout.replace(/\n$/, "").split("\n")
      const partial = lines.find((line) => line.startsWith("model: "))
      assert.isDefined(partial)
      const shown = (partial ?? "").slice("model: ".length)
      assert.isTrue(shown.length > 0 && shown.length < long.length && long.startsWith(shown), partial)
      expect(lines.slice(-2)).toStrictEqual(["interrupted (Ctrl-C): no call started after it", "stop: interrupted"])
      assert.notInclude(r.stdout, "model calls")
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\n")
      const events = eventsOf(trace)
      assert.isFalse(events.some((event) => event.type === "call.started"))
      const ended = events.filter((event) => event.type === "run.ended")
      assert.strictEqual(ended.length, 1)
      assert.strictEqual(ended[0]?.stop, "interrupted")
      assert.isTrue(long.startsWith(String(ended[0]?.text)), String(ended[0]?.text))
    }
  )
})
