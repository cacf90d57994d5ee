/**
 * JSON-RPC 2.0 messages as MCP's schema reads them (`JSONRPCMessageSchema` of the official SDK),
 * checked by hand: a request (`jsonrpc`, `id`, `method`, `params`?), a notification (`jsonrpc`,
 * `method`, `params`?), a result (`jsonrpc`, `id`, `result`) or an error (`jsonrpc`, `id`?,
 * `error`); no other member at the top; an id is a string or a safe integer; params and a result
 * are objects whose `_meta`, when present, is an object with a string or integer
 * `progressToken`. The same messages pass as with the SDK's schema, without loading zod per
 * line.
 *
 * @internal
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"

/** A request or response id. */
export type Id = string | number

/** Whether `u` is a JSON-RPC id as MCP allows it: a string, or an integer. */
export const isId = (u: unknown): u is Id => typeof u === "string" || Number.isSafeInteger(u)

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The related task of a request's `_meta`, as MCP's schema has it. */
const relatedTaskKey = "io.modelcontextprotocol/related-task"

/** A `_meta` member: absent, or an object whose progress token and related task are well-formed. */
const isMeta = (meta: unknown): boolean => {
  if (meta === undefined) return true
  if (!isRecord(meta)) return false
  const token = meta.progressToken
  if (token !== undefined && !isId(token)) return false
  const task = meta[relatedTaskKey]
  return task === undefined || (isRecord(task) && typeof task.taskId === "string")
}

/** Params or a result: absent (params only), or an object with a well-formed `_meta`. */
const isParams = (params: unknown): boolean => params === undefined || (isRecord(params) && isMeta(params._meta))

const only = (message: Record<string, unknown>, keys: ReadonlyArray<string>): boolean => {
  for (const key in message) if (!keys.includes(key)) return false
  return true
}

const requestKeys = ["jsonrpc", "id", "method", "params"]
const notificationKeys = ["jsonrpc", "method", "params"]
const resultKeys = ["jsonrpc", "id", "result"]
const errorKeys = ["jsonrpc", "id", "error"]

/** Whether `u` is a JSON-RPC message MCP reads; the message as it is when so. */
export const isMessage = (u: unknown): u is JSONRPCMessage => {
  if (!isRecord(u) || u.jsonrpc !== "2.0") return false
  if (typeof u.method === "string") {
    return "id" in u
      ? isId(u.id) && isParams(u.params) && only(u, requestKeys)
      : isParams(u.params) && only(u, notificationKeys)
  }
  if ("result" in u) return isId(u.id) && isRecord(u.result) && isMeta(u.result._meta) && only(u, resultKeys)
  if ("error" in u) {
    const error = u.error
    return (
      (u.id === undefined || isId(u.id)) &&
      isRecord(error) &&
      Number.isSafeInteger(error.code) &&
      typeof error.message === "string" &&
      only(u, errorKeys)
    )
  }
  return false
}
