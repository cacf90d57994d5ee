/**
 * Rich results through `execute`: a tool returns `ToolContent` (text, images, resource links,
 * structured content) or declares an `output` schema, and the outcome and its tool_result block
 * carry the parts beside the text, which says what each part is. Hostile content is dropped and
 * said, never a crash; the text is cut to `maxContent` with a marker in the catalogue's words.
 */
import { MessageCatalog, Tool, ToolContent, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Execute, Message, Outcome, Trace } from "../src/index.ts"

const png = "iVBORw0KGgo="
const none = Schema.Struct({})

const run = (tool: Tool.Any, options?: Execute.Options) =>
  Effect.runPromise(Execute.execute(Toolset.make(tool), { id: "c1", name: tool.name, input: {} }, options))

const richTool = (content: () => unknown) =>
  Tool.make("shot", { description: "a screenshot", parameters: none, run: content })

describe("rich content", () => {
  it("a ToolContent's image and link travel beside the text, which says what they are", async () => {
    const outcome = await run(
      richTool(() =>
        ToolContent.make({
          text: "the page",
          parts: [
            { type: "image", mediaType: "image/png", data: png },
            { type: "resource_link", uri: "file:///a.txt", name: "a.txt" }
          ]
        })
      )
    )
    expect(outcome._tag).toBe("Succeeded")
    expect(outcome.content).toBe("the page\n[image image/png, 8 bytes]\n[resource file:///a.txt (a.txt)]")
    const block = Outcome.toToolResult(outcome)
    expect(block.parts).toEqual([
      { type: "image", mediaType: "image/png", data: png },
      { type: "resource_link", uri: "file:///a.txt", name: "a.txt" }
    ])
    expect(block.is_error).toBe(false)
  })

  it("data that merely looks like a part is JSON: only the brand makes rich content", async () => {
    const outcome = await run(richTool(() => ({ type: "image", mediaType: "image/png", data: png, parts: [] })))
    expect(outcome.content).toBe(`{"type":"image","mediaType":"image/png","data":"${png}","parts":[]}`)
    expect(Outcome.toToolResult(outcome).parts).toBeUndefined()
  })

  it("a tool with an output schema answers its encoded value as structured content and JSON text", async () => {
    const Total = Schema.Struct({ total: Schema.Finite, at: Schema.Date })
    const tool = Tool.make("sum", {
      description: "adds",
      parameters: none,
      output: Total,
      run: () => ({ total: 3, at: new Date(0) })
    })
    const outcome = await run(tool)
    expect(outcome._tag).toBe("Succeeded")
    expect(Outcome.structuredOf(outcome)).toEqual({ total: 3, at: "1970-01-01T00:00:00.000Z" })
    expect(JSON.parse(outcome.content)).toEqual({ total: 3, at: "1970-01-01T00:00:00.000Z" })
    expect(Outcome.toToolResult(outcome).structured).toEqual({ total: 3, at: "1970-01-01T00:00:00.000Z" })
  })

  it("a value its output schema cannot encode is a failure that names the problem", async () => {
    const tool = Tool.make("sum", {
      description: "adds",
      parameters: none,
      output: Schema.Struct({ total: Schema.Finite }),
      run: () => ({ total: "three" }) as unknown as { total: number }
    })
    const outcome = await run(tool)
    expect(outcome._tag).toBe("Failed")
    expect(outcome.content).toContain("does not match its output schema")
    expect(outcome.content).toContain("total")
  })

  it("a typed failure made with ToolContent keeps its parts on the error", async () => {
    const tool = Tool.make("shot", {
      description: "a screenshot",
      parameters: none,
      run: () =>
        Effect.fail(
          ToolContent.make({ text: "it broke", parts: [{ type: "image", mediaType: "image/png", data: png }] })
        )
    })
    const outcome = await run(tool)
    expect(outcome._tag).toBe("Failed")
    expect(outcome.content).toBe("it broke\n[image image/png, 8 bytes]")
    expect(Outcome.toToolResult(outcome)).toMatchObject({ is_error: true, parts: [{ type: "image" }] })
  })

  it("a tool's failureContent gives its typed failure parts; one that throws leaves the text", async () => {
    const failing = (failureContent: (error: string) => ToolContent.Content | undefined) =>
      Tool.make("shot", {
        description: "a screenshot",
        parameters: none,
        run: () => Effect.fail("it broke"),
        failureContent
      })
    const rich = await run(
      failing((error) =>
        ToolContent.make({ text: error, parts: [{ type: "image", mediaType: "image/png", data: png }] })
      )
    )
    expect(rich.content).toBe("it broke\n[image image/png, 8 bytes]")
    expect(Outcome.partsOf(rich)).toEqual([{ type: "image", mediaType: "image/png", data: png }])
    const plain = await run(
      failing(() => {
        throw new Error("boom")
      })
    )
    expect(plain.content).toBe("it broke")
    expect(Outcome.partsOf(plain)).toEqual([])
  })

  it("a failure's structured content (a command's exit code and streams) is kept on the Failed outcome and its tool_result", async () => {
    const failing = Tool.make("cmd", {
      description: "a command",
      parameters: none,
      run: () => Effect.fail("exit code 3"),
      failureContent: (error: string) => ToolContent.make({ text: error, structured: { exit_code: 3, stderr: "err" } })
    })
    const outcome = await run(failing)
    expect(outcome._tag).toBe("Failed")
    expect(outcome.content).toBe("exit code 3")
    expect(Outcome.structuredOf(outcome)).toEqual({ exit_code: 3, stderr: "err" })
    const block = Outcome.toToolResult(outcome)
    expect(block.is_error).toBe(true)
    expect(block.structured).toEqual({ exit_code: 3, stderr: "err" })
  })

  it("parts survive a trace line's JSON round trip, and an old line without parts still reads", async () => {
    const outcome = await run(
      richTool(() =>
        ToolContent.make({
          text: "t",
          parts: [{ type: "image", mediaType: "image/png", data: png }],
          structured: { a: 1 }
        })
      )
    )
    const block = Outcome.toToolResult(outcome)
    const decode = Schema.decodeUnknownSync(Schema.fromJsonString(Message.ToolResultBlock))
    expect(decode(JSON.stringify(block))).toEqual(block)
    const old = '{"type":"tool_result","tool_use_id":"c1","content":"hi","is_error":false}'
    expect(decode(old)).toEqual({ type: "tool_result", tool_use_id: "c1", content: "hi", is_error: false })
    const event = Trace.observation(1, outcome)
    const line = Schema.decodeSync(Schema.fromJsonString(Trace.Event))(JSON.stringify(event))
    expect(line).toMatchObject({ result: { parts: [{ type: "image", data: png }], structured: { a: 1 } } })
  })
})

describe("hostile content never crashes and is said", () => {
  it("data that is not base64, a too-large image, an unreadable part, a cyclic structure", async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const throwing = {
      get type(): string {
        throw new Error("getter boom")
      }
    }
    const big = "A".repeat(4 * 1000)
    const outcome = await run(
      richTool(() =>
        ToolContent.make({
          text: "t",
          parts: [
            { type: "image", mediaType: "image/png", data: "not base64!" },
            { type: "image", mediaType: "image/png", data: big },
            throwing as unknown as ToolContent.Part,
            { type: "image", mediaType: "image/gif", data: png }
          ],
          structured: cyclic
        })
      ),
      { maxPartBytes: 1000 }
    )
    expect(outcome._tag).toBe("Succeeded")
    expect(outcome.content.split("\n")).toEqual([
      "t",
      "[image image/png: not shown, its data is not base64]",
      "[image image/png: not shown, more than the 1,000 bytes allowed]",
      "[part: not shown, it cannot be read]",
      "[image image/gif, 8 bytes]",
      "[structured content: not shown, it is not JSON]"
    ])
    expect(Outcome.partsOf(outcome)).toEqual([{ type: "image", mediaType: "image/gif", data: png }])
    expect(Outcome.structuredOf(outcome)).toBeUndefined()
  })

  it("a ToolContent whose fields throw is answered, not a crash", async () => {
    const content = ToolContent.make({ text: "x" })
    const hostile = new Proxy(content, {
      get: (_target, key) => {
        if (key === ToolContent.TypeId) return ToolContent.TypeId
        throw new Error(`no ${String(key)}`)
      }
    })
    const outcome = await run(richTool(() => hostile))
    expect(outcome._tag).toBe("Succeeded")
    expect(outcome.content).toBe("[content: not shown, it cannot be read]")
  })
})

describe("the content cap", () => {
  const long = Tool.make("long", { description: "long", parameters: none, run: () => "x".repeat(12_345 + 100) })

  it("cuts the text at maxContent with a marker saying how much was not shown (English)", async () => {
    const outcome = await run(long, { maxContent: 100 })
    expect(outcome.content).toBe(`${"x".repeat(100)}\n… 12,345 more characters not shown`)
  })

  it("says it in Spanish through the catalogue", async () => {
    const outcome = await Effect.runPromise(
      Execute.execute(Toolset.make(long), { id: "c1", name: "long", input: {} }, { maxContent: 100 }).pipe(
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
    )
    expect(outcome.content).toBe(`${"x".repeat(100)}\n… faltan 12.345 caracteres por mostrar`)
  })

  it("reads the Limits in use, and Infinity does not cut", async () => {
    const toolset = Toolset.make(long)
    const call = { id: "c1", name: "long", input: {} }
    const limited = await Effect.runPromise(
      Execute.execute(toolset, call).pipe(Effect.provideService(Execute.Limits, { maxContent: 10, maxPartBytes: 1 }))
    )
    expect(limited.content).toBe(`${"x".repeat(10)}\n… 12,435 more characters not shown`)
    const whole = await run(long, { maxContent: Infinity })
    expect(whole.content.length).toBe(12_445)
  })

  it("the default keeps 100,000 characters whole and cuts past 120,000", async () => {
    const tool = (n: number) => Tool.make("n", { description: "n", parameters: none, run: () => "y".repeat(n) })
    expect((await run(tool(100_100))).content.length).toBe(100_100)
    expect((await run(tool(130_000))).content).toMatch(/\n… 10,000 more characters not shown$/)
  })

  it("a typed failure's and a throw's texts are cut too", async () => {
    const failing = Tool.make("f", {
      description: "f",
      parameters: none,
      run: () => Effect.fail("e".repeat(500))
    })
    const throwing = Tool.make("t", {
      description: "t",
      parameters: none,
      run: (): string => {
        throw new Error("e".repeat(500))
      }
    })
    expect((await run(failing, { maxContent: 50 })).content).toMatch(/^e{50}\n… 450 more characters not shown$/)
    expect((await run(throwing, { maxContent: 50 })).content).toMatch(/^e{50}\n… 450 more characters not shown$/)
  })

  it("an invalid maxContent refuses the call, naming the option", async () => {
    const outcome = await run(long, { maxContent: 0 })
    expect(outcome._tag).toBe("Refused")
    expect(outcome.content).toContain("'maxContent'")
  })

  it("the synchronous core cuts with the harness's limits", () => {
    const now = Execute.executeSync(
      Toolset.make(long),
      { id: "c1", name: "long", input: {} },
      {
        catalog: MessageCatalog.english,
        parser: (u) => ({ ok: true, answer: u }),
        limits: { maxContent: 5, maxPartBytes: 1 }
      }
    )
    expect(Effect.isEffect(now)).toBe(false)
    expect((now as Outcome.Outcome).content).toBe("xxxxx\n… 12,440 more characters not shown")
  })
})
