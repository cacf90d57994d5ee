#!/usr/bin/env node
// A small MCP server for the scenario next to it (calculator.json), on stdio: newline-delimited
// JSON-RPC, no dependencies, so it runs wherever the harness runs (any Node, the installed CLI).
// Two tools: `divide` (a / b; dividing by zero is the server's own isError result) and `calls`
// (how many tool calls reached the server before this one: a call refused by the harness's
// local validation never does). It stops when its stdin ends.
import { createInterface } from "node:readline"

const hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
const tools = [
  {
    name: "divide",
    description: "Divides a by b.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false
    },
    annotations: hints
  },
  {
    name: "calls",
    description: "How many tool calls this server received before this one.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    annotations: hints
  }
]

let received = 0
const text = (value, isError = false) => ({ content: [{ type: "text", text: value }], isError })

const call = ({ name, arguments: args = {} }) => {
  const before = received++
  if (name === "calls") return text(`${before} calls before this one`)
  if (name === "divide") {
    return args.b === 0 ? text(`cannot divide ${args.a} by zero`, true) : text(String(args.a / args.b))
  }
  return text(`no tool named '${name}'`, true)
}

const answer = (request) => {
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: request.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "calculator", version: "1.0.0" }
      }
    case "ping":
      return {}
    case "tools/list":
      return { tools }
    case "tools/call":
      return call(request.params ?? {})
    default:
      return undefined
  }
}

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)

createInterface({ input: process.stdin }).on("line", (line) => {
  let request
  try {
    request = JSON.parse(line)
  } catch {
    return send({ id: null, error: { code: -32700, message: "Parse error" } })
  }
  if (request.id === undefined) return // a notification
  const result = answer(request)
  send(
    result === undefined
      ? { id: request.id, error: { code: -32601, message: `Method not found: ${request.method}` } }
      : { id: request.id, result }
  )
})
