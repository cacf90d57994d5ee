/**
 * The stdio session's check of JSON-RPC messages agrees with the official SDK's schema
 * (`JSONRPCMessageSchema`) on well-formed and malformed messages alike.
 */
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { describe, expect, it } from "vitest"
import * as JsonRpc from "../src/internal/JsonRpc.ts"

const cases: ReadonlyArray<unknown> = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read", arguments: { path: "a" } } },
  { jsonrpc: "2.0", id: "x", method: "tools/list" },
  { jsonrpc: "2.0", id: 1.5, method: "tools/list" },
  { jsonrpc: "2.0", id: null, method: "tools/list" },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: [] },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: null },
  { jsonrpc: "2.0", id: 1, method: "tools/list", extra: true },
  { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: "t" } } },
  { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: [] } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "r" } },
  { jsonrpc: "2.0", method: 3 },
  { jsonrpc: "1.0", id: 1, method: "x" },
  { jsonrpc: "2.0", id: 1, result: {} },
  { jsonrpc: "2.0", id: 1, result: [] },
  { jsonrpc: "2.0", id: 1, result: { content: [] }, more: 1 },
  { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
  { jsonrpc: "2.0", error: { code: -32600, message: "x", data: { a: 1 } } },
  { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "x" } },
  { jsonrpc: "2.0", id: 1, error: { code: 1 } },
  { jsonrpc: "2.0", id: 1 },
  null,
  [],
  "x",
  42
]

describe("JsonRpc.isMessage", () => {
  it("accepts exactly what the SDK's JSONRPCMessageSchema accepts", () => {
    for (const message of cases) {
      expect(JsonRpc.isMessage(message), JSON.stringify(message)).toBe(JSONRPCMessageSchema.safeParse(message).success)
    }
  })
})
