/**
 * A rich observation in the journal: a call whose tool answered an image and structured content
 * is recorded with them in the SQLite file, and replayed with them after the journal is opened
 * again; a record written before parts existed still reads, as text.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Execute, Outcome } from "@agent-harness/executor"
import { Tool, ToolContent, Toolset } from "@agent-harness/tool-schema"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Journal, SqliteStore } from "../src/index.ts"

const temp = mkdtempSync(join(tmpdir(), "idempotency-rich-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const png = "iVBORw0KGgo="
let runs = 0
const shot = Tool.make("shot", {
  description: "takes a screenshot (appends to a log: not idempotent)",
  parameters: Schema.Struct({ page: Schema.String }),
  run: ({ page }) => {
    runs += 1
    return ToolContent.make({
      text: `page ${page}`,
      parts: [{ type: "image", mediaType: "image/png", data: png }],
      structured: { page, width: 1 }
    })
  }
})
const toolset = Toolset.make(shot)
const call = { id: "c1", name: "shot", input: { page: "home" } }

const once = (file: string) =>
  Effect.scoped(
    Effect.flatMap(SqliteStore.make(file), (store) =>
      Execute.execute(toolset, call).pipe(Effect.provide(Journal.layer(store)))
    )
  )

describe("rich observations in the journal", () => {
  it("are recorded with their parts and replayed with them after a reopen", async () => {
    const file = join(temp, "rich.sqlite")
    const first = await Effect.runPromise(once(file))
    expect(first._tag).toBe("Succeeded")
    const again = await Effect.runPromise(once(file))
    expect(runs).toBe(1)
    expect(again._tag).toBe("Replayed")
    expect(again.content).toBe(first.content)
    expect(Outcome.partsOf(again)).toEqual([{ type: "image", mediaType: "image/png", data: png }])
    expect(Outcome.structuredOf(again)).toEqual({ page: "home", width: 1 })
    expect(Outcome.toToolResult(again)).toEqual(Outcome.toToolResult(first))
  }, 30_000)

  it("a record written before parts existed still reads, as its text", async () => {
    const file = join(temp, "old.sqlite")
    // A journal file with the call done, as an older version wrote it: no parts in the observation.
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* SqliteStore.make(file)
          yield* store.start("c1", "shot", { page: "home" })
          yield* store.finish(
            "c1",
            "shot",
            { page: "home" },
            {
              original: "Succeeded",
              is_error: false,
              content: "page home\n[image image/png, 8 bytes]"
            }
          )
        })
      )
    )
    const before = runs
    const replay = await Effect.runPromise(once(file))
    expect(runs).toBe(before)
    expect(replay).toEqual({
      _tag: "Replayed",
      id: "c1",
      name: "shot",
      original: "Succeeded",
      isError: false,
      content: "page home\n[image image/png, 8 bytes]"
    })
    const decode = Schema.decodeUnknownSync(Schema.fromJsonString(Journal.Observation))
    expect(decode('{"original":"Failed","is_error":true,"content":"boom"}')).toEqual({
      original: "Failed",
      is_error: true,
      content: "boom"
    })
  }, 30_000)
})
