/**
 * The caller `Serve` gives a call, without a transport: what is checked before anything is
 * sent (the capability, the tool's own request, its timeout), and how each way a request can
 * end becomes a `CallerError`. Hostile requests (a proxy whose every trap throws) and hostile
 * answers are typed failures, never crashes.
 */
import { describe, expect, it } from "@effect/vitest"
import { type ClientCapabilities, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { Caller } from "../src/index.ts"
import * as ServedCaller from "../src/internal/ServedCaller.ts"

const hello = { messages: [{ role: "user" as const, content: { type: "text" as const, text: "hi" } }], maxTokens: 5 }
const form = {
  message: "?",
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } } }
}

/** The caller for a client with `capabilities`; `sent` records each request, `answer` answers it. */
const callerOf = (capabilities: ClientCapabilities | undefined, answer: () => Promise<unknown>) => {
  const sent: Array<unknown> = []
  const caller = ServedCaller.make(
    () => capabilities,
    (request) => {
      sent.push(request)
      return answer()
    }
  )
  return { caller, sent }
}

const failureOf = <A>(effect: Effect.Effect<A, Caller.CallerError>) => Effect.runPromise(Effect.flip(effect))

describe("ServedCaller", () => {
  it("checks the capability before sending: none declared (a stateless exchange), sampling.tools, a URL-only elicitation", async () => {
    const never = () => Promise.reject(new Error("must not be sent"))
    const stateless = callerOf(undefined, never)
    expect(await failureOf(stateless.caller.elicit(form))).toBeInstanceOf(Caller.CallerError)
    expect(await failureOf(stateless.caller.sample(hello))).toMatchObject({
      reason: "NotDeclared",
      message:
        "the MCP client did not declare the 'sampling' capability, so it cannot be asked for sampling/createMessage"
    })
    const plain = callerOf({ sampling: {}, elicitation: { url: {} } }, never)
    const withTools = { ...hello, tools: [{ name: "t", inputSchema: { type: "object" as const } }] }
    expect(await failureOf(plain.caller.sample(withTools))).toMatchObject({
      reason: "NotDeclared",
      message: expect.stringContaining("'sampling.tools'")
    })
    expect(await failureOf(plain.caller.elicit(form))).toMatchObject({ reason: "NotDeclared" })
    expect([...stateless.sent, ...plain.sent]).toStrictEqual([])
  })

  it("a tool's invalid or hostile request, or a timeout that is not a duration, is InvalidRequest and nothing is sent", async () => {
    const { caller, sent } = callerOf({ sampling: {}, elicitation: {} }, () => Promise.resolve({}))
    expect(await failureOf(caller.sample({ messages: [] } as never))).toMatchObject({
      reason: "InvalidRequest",
      message: expect.stringContaining("maxTokens")
    })
    const trap = () => {
      throw new Error("trap")
    }
    const hostile = new Proxy(
      {},
      { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap }
    )
    expect(await failureOf(caller.sample(hostile as never))).toMatchObject({ reason: "InvalidRequest" })
    expect(await failureOf(caller.elicit(hostile as never))).toMatchObject({ reason: "InvalidRequest" })
    expect(await failureOf(caller.sample(hello, { timeout: "soon" as never }))).toMatchObject({
      reason: "InvalidRequest",
      message: "sampling/createMessage: the timeout 'soon' is not a positive, finite duration"
    })
    expect(sent).toStrictEqual([])
  })

  it("each way a sent request ends is a CallerError: timed out, closed, refused, off-schema, anything thrown", async () => {
    const ending = async (error: unknown) =>
      failureOf(callerOf({ sampling: {} }, () => Promise.reject(error)).caller.sample(hello))
    expect(await ending(new McpError(ErrorCode.RequestTimeout, "Request timed out"))).toMatchObject({
      reason: "TimedOut",
      message: "the MCP client did not answer sampling/createMessage within 60000 ms"
    })
    expect(await ending(new McpError(ErrorCode.ConnectionClosed, "Connection closed"))).toMatchObject({
      reason: "Failed",
      message: "the connection to the MCP client closed before it answered sampling/createMessage"
    })
    expect(await ending(new McpError(-1, `MCP error -1: ${"no ".repeat(1000)}`))).toMatchObject({
      reason: "Refused",
      message: expect.stringMatching(
        /^the MCP client refused sampling\/createMessage \(error -1\): no no .*more characters\)$/
      )
    })
    expect(await ending({ issues: [{ path: ["content", "text"], message: "Required" }] })).toMatchObject({
      reason: "InvalidAnswer",
      message: "the MCP client's answer to sampling/createMessage is not a valid result: content.text: Required"
    })
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error("trap")
        }
      }
    )
    expect(await ending(hostile)).toMatchObject({ reason: "Failed" })
  })

  it("a declined, dismissed or off-schema form is a CallerError; an accepted one is what the user submitted", async () => {
    const answering = (answer: unknown) => callerOf({ elicitation: {} }, () => Promise.resolve(answer)).caller
    expect(await failureOf(answering({ action: "decline" }).elicit(form))).toMatchObject({ reason: "Declined" })
    expect(await failureOf(answering({ action: "cancel" }).elicit(form))).toMatchObject({ reason: "Cancelled" })
    expect(await failureOf(answering({ action: "accept", content: { name: 7 } }).elicit(form))).toMatchObject({
      reason: "InvalidAnswer",
      message: expect.stringContaining("does not match the requested schema")
    })
    expect(
      await Effect.runPromise(answering({ action: "accept", content: { name: "Ada" } }).elicit(form))
    ).toStrictEqual({
      name: "Ada"
    })
  })
})
