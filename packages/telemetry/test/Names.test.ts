import { Spans } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import * as Incubating from "@opentelemetry/semantic-conventions/incubating"

const constants = (prefix: string): Map<string, string> =>
  new Map(
    Object.entries(Incubating as Record<string, unknown>).flatMap(
      ([name, value]): Array<[string, string]> =>
        name.startsWith(prefix) && typeof value === "string" ? [[value, name]] : []
    )
  )

describe("Spans' names are the GenAI semantic conventions' (@opentelemetry/semantic-conventions)", () => {
  it("every gen_ai.* and error.* attribute is one of ATTR_GEN_AI_* or ATTR_ERROR_TYPE", () => {
    const known = new Map([...constants("ATTR_GEN_AI_"), [Incubating.ATTR_ERROR_TYPE, "ATTR_ERROR_TYPE"]])
    const ours = Object.entries(Spans.Attribute).filter(
      ([, name]) => name.startsWith("gen_ai.") || name.startsWith("error.")
    )
    assert.isAbove(ours.length, 10)
    const unknown = ours.filter(([, name]) => !known.has(name))
    assert.deepStrictEqual(unknown, [], "attributes the conventions do not define")
    assert.strictEqual(Spans.Attribute.errorType, Incubating.ATTR_ERROR_TYPE)
    assert.strictEqual(Spans.Attribute.operationName, Incubating.ATTR_GEN_AI_OPERATION_NAME)
  })

  it("every other attribute is this toolkit's own, under agent_harness.*", () => {
    const others = Object.values(Spans.Attribute).filter(
      (name) => !name.startsWith("gen_ai.") && !name.startsWith("error.")
    )
    for (const name of others) assert.match(name, /^agent_harness\./)
    for (const name of Object.values(Spans.Event)) assert.match(name, /^agent_harness\./)
  })

  it("every Spans.Operation is a GEN_AI_OPERATION_NAME_VALUE_*", () => {
    const known = constants("GEN_AI_OPERATION_NAME_VALUE_")
    for (const [key, value] of Object.entries(Spans.Operation)) assert.isTrue(known.has(value), `${key}: ${value}`)
    assert.strictEqual(Spans.Operation.invokeAgent, Incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT)
    assert.strictEqual(Spans.Operation.executeTool, Incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL)
  })
})
