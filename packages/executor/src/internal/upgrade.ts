/**
 * Reading traces written before the one event grammar (`<noun>.<past participle>`, 0.2): the
 * old type names and fields, mapped to the new ones, in one table. Internal: `Trace.upgrade` and
 * `Trace.renamed` are its public face.
 */

/** Every old event type and the type it is written as now. */
export const renamed: ReadonlyMap<string, string> = new Map([
  ["start", "run.started"],
  ["annotation", "trace.annotated"],
  ["model.request", "model.requested"],
  ["model.reply", "model.replied"],
  ["model.usage", "usage.reported"],
  ["model.retry", "model.retried"],
  ["call", "call.started"],
  ["observation", "call.answered"],
  ["permission.decision", "permission.decided"],
  ["breaker", "breaker.tripped"],
  ["tool.progress", "call.progressed"],
  ["stop", "run.ended"],
  ["session.start", "session.started"],
  ["session.result", "session.recorded"],
  ["session.unencodable", "trace.annotated"]
])

type Fields = { readonly [key: string]: unknown }

const isFields = (u: unknown): u is Fields => typeof u === "object" && u !== null && !Array.isArray(u)

/** The fields of an old event under its new type: the ones whose name or place changed. */
const moved = (old: string, fields: Fields): Fields => {
  switch (old) {
    case "call": {
      // `call: { type: "tool_use", id, name, input }` → `tool_use_id`, `name`, `input`.
      const { call, ...rest } = fields
      if (!isFields(call)) return fields
      return {
        ...rest,
        ...("id" in call ? { tool_use_id: call.id } : {}),
        ...("name" in call ? { name: call.name } : {}),
        ...("input" in call ? { input: call.input } : {})
      }
    }
    case "step.started": {
      const { call_id, ...rest } = fields
      return call_id === undefined || "tool_use_id" in rest ? fields : { ...rest, tool_use_id: call_id }
    }
    case "session.unencodable": {
      // A line the session could not encode is the trace's own `~unencodable` annotation now.
      const { type: _type, ...value } = fields
      return { key: "~unencodable", value }
    }
    default:
      return fields
  }
}

/**
 * The event as written today: an old type renamed and its moved fields put where they are now;
 * anything else (a new event, an edge's event, a value that is not an event) as it is. Never
 * throws: a value whose fields cannot be read is returned unchanged.
 */
export const upgrade = (json: unknown): unknown => {
  try {
    if (!isFields(json)) return json
    const old = json.type
    if (typeof old !== "string") return json
    const type = renamed.get(old)
    if (type === undefined) return old === "step.started" ? moved(old, json) : json
    return { ...moved(old, json), type }
  } catch {
    return json
  }
}
