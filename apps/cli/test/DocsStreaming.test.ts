/**
 * The library example of docs/streaming.md runs as written: its code block, with only the model
 * pointed at the loopback fake provider and the folder at a temporary one, streams the fake's
 * reply (text in pieces, a call, its observation) to stdout.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { apiKey, fakeProviders } from "./fixtures/fakes.ts"

const cli = fileURLToPath(new URL("..", import.meta.url))
const docs = fileURLToPath(new URL("../../../docs/streaming.md", import.meta.url))
// Inside the app, so that the example's imports resolve as a user's would.
const work = mkdtempSync(join(cli, ".tmp-docs-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const start = fakeProviders()

/** The first ts code block of the page. */
const example = (): string => {
  const page = readFileSync(docs, "utf8")
  const found = /```ts\n([\s\S]*?)```/.exec(page)
  if (found?.[1] === undefined) throw new Error("docs/streaming.md has no ts example")
  return found[1]
}

describe("docs/streaming.md", () => {
  it("the library example streams a reply, a call and its observation", { timeout: 120_000 }, async () => {
    const code = example()
    assert.isAtMost(code.trim().split("\n").length, 22, "the example stays about 20 lines")
    const fake = await start({
      anthropic: [
        FakeProvider.reply([Message.text("Looking."), Message.toolUse("toolu_1", "list", { folder: "notes" })], {
          stop: "tool_use",
          chunking: { textChars: 2 }
        }),
        FakeProvider.reply([Message.text("notes/ has todo.txt.")], { chunking: { textChars: 3 } })
      ]
    })
    const project = join(work, "project")
    mkdirSync(join(project, "notes"), { recursive: true })
    writeFileSync(join(project, "notes", "todo.txt"), "milk\n")
    const pointed = code
      .replace('import { anthropic } from "@ai-sdk/anthropic"', 'import { createAnthropic } from "@ai-sdk/anthropic"')
      .replace(
        'anthropic("claude-sonnet-4-5")',
        `createAnthropic({ baseURL: ${JSON.stringify(`${fake.url}/v1`)}, apiKey: ${JSON.stringify(apiKey)} })("claude-sonnet-4-5")`
      )
      .replace('"./project"', JSON.stringify(project))
    assert.notStrictEqual(pointed, code)
    const file = join(work, "example.ts")
    writeFileSync(file, pointed)
    const written: Array<string> = []
    const write = process.stdout.write
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
      return true
    }) as typeof process.stdout.write
    try {
      await import(pathToFileURL(file).href)
    } finally {
      process.stdout.write = write
    }
    const out = written.join("")
    assert.strictEqual(out, 'Looking.\n→ list {"folder":"notes"}\n← notes/todo.txt\nnotes/ has todo.txt.')
    // Text came in pieces: more writes than lines.
    assert.isAbove(written.length, 6)
  })
})
