/**
 * A step's call id has the one TypeScript name a call id has when something else refers to it,
 * `toolUseId` (the wire's `tool_use_id`); `callId` stays as its deprecated alias.
 */
import { assert, describe, it } from "@effect/vitest"
import { Session } from "../src/index.ts"

describe("Session.toolUseId", () => {
  it("is <session id>/step-<revision>-<step id>", () => {
    assert.strictEqual(Session.toolUseId("order-1234", 0, 1), "order-1234/step-0-1")
    assert.strictEqual(Session.toolUseId("order-1234", 2, 7), "order-1234/step-2-7")
  })

  it("callId is the same function, under its old name", () => {
    assert.strictEqual(Session.callId, Session.toolUseId)
  })
})
