/**
 * The fake provider counts the streamed answers whose last event it has sent (`streamsSent`), so
 * a test can tell that a client showed something before the stream's end: a paced stream read
 * event by event is not counted until its last event, a whole (unstreamed) answer never is.
 */
import { Message } from "@agent-harness/executor"
import { afterEach, assert, describe, it } from "vitest"
import { FakeProvider } from "../src/testing.ts"

const fakes: Array<FakeProvider.Fake> = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})

const ask = (fake: FakeProvider.Fake, stream: boolean) =>
  fetch(`${fake.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: "claude-test",
      max_tokens: 100,
      stream,
      messages: [{ role: "user", content: "hi" }]
    }),
    signal: AbortSignal.timeout(20_000)
  })

describe("FakeProvider streamsSent", () => {
  it("counts a stream once its last event is sent, and never a whole answer", { timeout: 60_000 }, async () => {
    const reply = FakeProvider.reply([Message.text("one two three four five six")], {
      chunking: { textChars: 4, delayMs: 150 }
    })
    const fake = await FakeProvider.start({ anthropic: [reply, reply] })
    fakes.push(fake)
    const whole = await ask(fake, false)
    await whole.text()
    assert.strictEqual(fake.streamsSent(), 0)
    const streamed = await ask(fake, true)
    const reader = streamed.body?.getReader()
    assert.isDefined(reader)
    if (reader === undefined) return
    const first = await reader.read()
    assert.isFalse(first.done)
    // The first events are here; the paced rest (seven text deltas and more) is not yet sent.
    assert.strictEqual(fake.streamsSent(), 0)
    let text = new TextDecoder().decode(first.value)
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      text += new TextDecoder().decode(next.value)
    }
    assert.include(text, "event: message_stop")
    assert.strictEqual(fake.streamsSent(), 1)
  })
})
