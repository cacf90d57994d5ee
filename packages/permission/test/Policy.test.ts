/**
 * Policies: decoding with JSON paths (unknown annotations, decisions and fields refused whatever
 * the options, globs that do not compile), the first matching rule deciding, every kind of
 * condition, and the readings of a call: a rule cannot be dodged by spelling a path otherwise,
 * and hostile arguments deny instead of throwing.
 */
import { Tool } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema, SchemaIssue, SchemaParser } from "effect"
import { Approver, Policy } from "../src/index.ts"

const invalid = (json: unknown): { readonly path: string; readonly problem: string } => {
  const decoded = Policy.decode(json)
  if (Result.isSuccess(decoded)) throw new Error(`decoded: ${JSON.stringify(json)}`)
  return { path: decoded.failure.path, problem: decoded.failure.problem }
}

describe("Policy.decode", () => {
  it("a policy decodes as written", () => {
    const json = {
      rules: [
        { args: { path: ["secrets/**", "**/.env"] }, decision: "deny", reason: "secrets stay secret" },
        { annotations: { readOnly: true }, decision: "allow" },
        { tool: "append", args: { path: "notes/**" }, decision: "ask" }
      ],
      default: { decision: "deny", reason: "not covered" }
    }
    expect(Policy.decode(json)).toStrictEqual(Result.succeed(json))
    expect(Policy.decode({ default: "allow" })).toStrictEqual(Result.succeed({ default: "allow" }))
    expect(Policy.decode({})).toStrictEqual(Result.succeed({}))
  })

  it.each([
    [
      { rules: [{ annotations: { readonly: true }, decision: "allow" }] },
      "rules[0].annotations.readonly",
      "unexpected field"
    ],
    [{ rules: [{ decision: "maybe" }] }, "rules[0].decision", `expected "allow", "ask" or "deny", got "maybe"`],
    [{ rules: [{ tool: "read" }] }, "rules[0].decision", "missing"],
    [{ rules: [{ tol: "read", decision: "allow" }] }, "rules[0].tol", "unexpected field"],
    [
      { rules: [{ tool: "[z-a]", decision: "deny" }] },
      "rules[0].tool",
      "not a glob that compiles: the range 'z-a' is backwards"
    ],
    [
      { rules: [{ args: { path: ["ok/**", "notes/["] }, decision: "deny" }] },
      `rules[0].args.path[1]`,
      "not a glob that compiles: missing closing ']' (use '\\[' for a literal '[')"
    ],
    [
      { rules: [{ args: { path: [] }, decision: "deny" }] },
      "rules[0].args.path",
      "expected a value with a length of at least 1, got []"
    ],
    [
      { rules: [{ annotations: { readOnly: "yes" }, decision: "allow" }] },
      "rules[0].annotations.readOnly",
      `expected boolean, got "yes"`
    ],
    [{ default: "perhaps" }, "default", `expected "allow", "ask" or "deny", got "perhaps"`],
    [{ rules: {} }, "rules", "expected array, got {}"],
    [{ rule: [] }, "rule", "unexpected field"],
    [[], "(root)", "expected object, got []"]
  ])("%j is refused at %s", (json, path, problem) => {
    expect(invalid(json)).toStrictEqual({ path, problem })
  })

  it("unknown fields are refused by the Schema itself, whatever the decoding options", () => {
    const lax = Schema.decodeUnknownResult(Policy.Policy)
    const decoded = lax(
      { rules: [{ annotations: { readonly: true }, decision: "allow" }] },
      { onExcessProperty: "ignore" }
    )
    expect(Result.isFailure(decoded)).toBe(true)
  })

  it("a value that throws when read is refused, not thrown", () => {
    const hostile = {
      get rules(): never {
        throw new Error("getter boom")
      }
    }
    expect(invalid(hostile)).toStrictEqual({ path: "(root)", problem: "it could not be read: getter boom" })
  })
})

describe("Policy.parse", () => {
  it("JSON text, and what is not JSON", () => {
    expect(Policy.parse(`\uFEFF{"default":"deny"}`)).toStrictEqual(Result.succeed({ default: "deny" }))
    const bad = Policy.parse(`{"default":`)
    expect(Result.isFailure(bad) && bad.failure.path).toBe("(root)")
    expect(Result.isFailure(bad) && bad.failure.problem).toMatch(/^not JSON: /)
  })

  it("a strict parser given by the caller speaks with its own path", () => {
    const strict: Policy.JsonParser = () =>
      Result.fail({ path: ["rules", 0, "decision"], problem: "a key written twice" })
    expect(Result.map(Policy.parse(`{}`, strict), () => "decoded")).toStrictEqual(
      Result.fail(new Policy.InvalidPolicy({ path: "rules[0].decision", problem: "a key written twice" }))
    )
  })

  it("InvalidPolicy's message names the path", () => {
    expect(new Policy.InvalidPolicy({ path: "default", problem: "missing" }).message).toBe("default: missing")
  })
})

const compiled = (policy: Policy.Policy): Policy.Compiled => Result.getOrThrow(Policy.compile(policy))
const readOnly: Tool.Annotations = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
const writer: Tool.Annotations = { readOnly: false, destructive: false, idempotent: false, openWorld: false }
const decide = (policy: Policy.Policy, name: string, input: unknown, annotations: Tool.Annotations = writer) => {
  const { decision, rule, reason, problem } = Policy.decide(compiled(policy), { name, input }, annotations)
  return { decision, rule, reason, ...(problem === undefined ? {} : { problem }) }
}

describe("Policy.decide: the first matching rule decides", () => {
  const policy: Policy.Policy = {
    rules: [
      { tool: "append", args: { path: "notes/public/**" }, decision: "allow", reason: "public notes" },
      { tool: "append", args: { path: "notes/**" }, decision: "ask", reason: "private notes" },
      { args: { path: "secrets/**" }, decision: "deny", reason: "secrets" },
      { annotations: { readOnly: true }, decision: "allow" }
    ],
    default: { decision: "deny", reason: "not in the policy" }
  }

  it.each([
    ["append", { path: "notes/public/a.txt" }, writer, "allow", 0, "public notes"],
    ["append", { path: "notes/private.txt" }, writer, "ask", 1, "private notes"],
    ["read", { path: "secrets/k" }, readOnly, "deny", 2, "secrets"],
    ["read", { path: "notes/a" }, readOnly, "allow", 3, undefined],
    ["write", { path: "notes/a" }, writer, "deny", undefined, "not in the policy"]
  ] as const)("%s %j", (name, input, annotations, decision, rule, reason) => {
    expect(decide(policy, name, input, annotations)).toStrictEqual({ decision, rule, reason })
  })

  it("the same rules in another order decide otherwise: order is the author's", () => {
    const reversed: Policy.Policy = { rules: [...(policy.rules ?? [])].reverse(), default: "deny" }
    expect(decide(reversed, "read", { path: "secrets/k" }, readOnly).decision).toBe("allow")
  })

  it("no default asks", () => {
    expect(decide({}, "write", { path: "a" })).toStrictEqual({ decision: "ask", rule: undefined, reason: undefined })
  })
})

describe("Policy.decide: conditions", () => {
  it("tool globs, several globs, and MCP-style prefixes", () => {
    const policy: Policy.Policy = { rules: [{ tool: ["fs__*", "read"], decision: "allow" }], default: "deny" }
    expect(decide(policy, "fs__read_file", {}).decision).toBe("allow")
    expect(decide(policy, "read", {}).decision).toBe("allow")
    expect(decide(policy, "web__fetch", {}).decision).toBe("deny")
  })

  it("every annotation a rule names must equal the tool's", () => {
    const policy: Policy.Policy = {
      rules: [{ annotations: { readOnly: false, destructive: true }, decision: "deny" }],
      default: "allow"
    }
    expect(decide(policy, "rm", {}, { ...writer, destructive: true }).decision).toBe("deny")
    expect(decide(policy, "append", {}, writer).decision).toBe("allow")
    expect(
      decide(
        { rules: [{ annotations: { openWorld: true }, decision: "ask" }], default: "allow" },
        "fetch",
        {},
        Tool.defaultAnnotations
      ).decision
    ).toBe("ask")
    expect(
      decide(
        { rules: [{ annotations: { idempotent: true }, decision: "allow" }], default: "deny" },
        "put",
        {},
        { ...writer, idempotent: true }
      ).decision
    ).toBe("allow")
  })

  it("an args rule needs the field as text: missing, a number or an object does not match", () => {
    const policy: Policy.Policy = { rules: [{ args: { path: "**" }, decision: "allow" }], default: "deny" }
    expect(decide(policy, "t", { path: "a/b" }).decision).toBe("allow")
    expect(decide(policy, "t", {}).decision).toBe("deny")
    expect(decide(policy, "t", { path: 3 }).decision).toBe("deny")
    expect(decide(policy, "t", { path: { x: 1 } }).decision).toBe("deny")
    // Inherited properties are not fields.
    expect(
      decide({ rules: [{ args: { toString: "**" }, decision: "allow" }], default: "deny" }, "t", {}).decision
    ).toBe("deny")
  })

  it("a negated glob: deny anything outside the workspace", () => {
    const policy: Policy.Policy = { rules: [{ args: { path: "!workspace/**" }, decision: "deny" }], default: "allow" }
    expect(decide(policy, "write", { path: "workspace/a" }).decision).toBe("allow")
    expect(decide(policy, "write", { path: "/etc/passwd" }).decision).toBe("deny")
    expect(decide(policy, "write", { path: "workspace/../etc/passwd" }).decision).toBe("deny")
  })
})

describe("Policy.decide: every reading of a call, the strictest answer", () => {
  const policy: Policy.Policy = {
    rules: [
      { args: { path: "secrets/**" }, decision: "deny", reason: "secrets" },
      { args: { path: "notes/**" }, decision: "allow" }
    ],
    default: "ask"
  }

  it.each(["notes/../secrets/k", "./secrets/k", "secrets//k", "secrets\\k", "notes/./../secrets/k", "secrets/k/"])(
    "%s is denied as secrets/k",
    (path) => {
      expect(decide(policy, "read", { path })).toStrictEqual({ decision: "deny", rule: 0, reason: "secrets" })
    }
  )

  it("a list of paths is each of its paths", () => {
    expect(decide(policy, "read", { path: ["notes/a", "secrets/k"] }).decision).toBe("deny")
    expect(decide(policy, "read", { path: ["notes/a", "elsewhere"] }).decision).toBe("ask")
    expect(decide(policy, "read", { path: ["notes/a", "notes/b"] }).decision).toBe("allow")
  })

  it("a URL keeps its scheme://", () => {
    const web: Policy.Policy = {
      rules: [{ args: { url: "https://example.com/**" }, decision: "allow" }],
      default: "ask"
    }
    expect(decide(web, "fetch", { url: "https://example.com/a/b" }).decision).toBe("allow")
    expect(decide(web, "fetch", { url: "https://example.com/../evil.com/x" }).decision).toBe("ask")
    expect(Policy.normalizePath("https://example.com/a/../b")).toBe("https://example.com/b")
  })

  it("normalizePath", () => {
    expect(Policy.normalizePath("./notes//a/../b/")).toBe("notes/b")
    expect(Policy.normalizePath("../../x")).toBe("../../x")
    expect(Policy.normalizePath("/a/../../b")).toBe("/b")
    expect(Policy.normalizePath("./")).toBe(".")
    expect(Policy.normalizePath("C:\\Users\\x\\..\\y")).toBe("C:/Users/y")
  })
})

describe("Policy.decide: hostile arguments deny, never throw", () => {
  const policy: Policy.Policy = { rules: [{ args: { path: "notes/**" }, decision: "allow" }], default: "allow" }

  it("a getter that throws", () => {
    const input = {
      get path(): string {
        throw new Error("getter boom")
      }
    }
    expect(decide(policy, "read", input)).toStrictEqual({
      decision: "deny",
      rule: undefined,
      reason: undefined,
      problem: { _tag: "Unreadable", field: "path", message: "getter boom" }
    })
  })

  it("a Proxy whose traps throw, and a revoked one", () => {
    const trap = new Proxy(
      {},
      {
        getOwnPropertyDescriptor: () => {
          throw new Error("trap boom")
        }
      }
    )
    expect(decide(policy, "read", trap).problem).toStrictEqual({
      _tag: "Unreadable",
      field: "path",
      message: "trap boom"
    })
    const { proxy, revoke } = Proxy.revocable({ path: "notes/a" }, {})
    revoke()
    expect(decide(policy, "read", proxy).decision).toBe("deny")
  })

  it("an array whose length throws, and one too long to check", () => {
    const array = new Proxy(["notes/a"], {
      get: (t, k) => {
        if (k === "length") throw new Error("length boom")
        return Reflect.get(t, k)
      }
    })
    expect(decide(policy, "read", { path: array }).problem).toStrictEqual({
      _tag: "Unreadable",
      field: "path",
      message: "length boom"
    })
    const long = Array.from({ length: 2000 }, (_, i) => `notes/${i}`)
    expect(decide(policy, "read", { path: long })).toStrictEqual({
      decision: "deny",
      rule: undefined,
      reason: undefined,
      problem: { _tag: "TooManyReadings", readings: 2000 }
    })
  })

  it("readings multiply across fields, up to maxReadings", () => {
    const two: Policy.Policy = { rules: [{ args: { from: "**", to: "**" }, decision: "allow" }], default: "ask" }
    const list = (n: number) => Array.from({ length: n }, (_, i) => `d/${i}`)
    expect(decide(two, "mv", { from: list(16), to: list(32) }).decision).toBe("allow")
    expect(decide(two, "mv", { from: list(40), to: list(40) }).problem).toStrictEqual({
      _tag: "TooManyReadings",
      readings: 1600
    })
  })

  it("a huge string is decided, in time proportional to its length", () => {
    const huge = `notes/${"a/".repeat(1_000_000)}x`
    expect(
      decide({ rules: [{ args: { path: "**/a*a*a*a*a*a*b/**" }, decision: "deny" }], default: "allow" }, "read", {
        path: huge
      }).decision
    ).toBe("allow")
    expect(decide(policy, "read", { path: huge }).decision).toBe("allow")
  })
})

describe("the CLI's defaults and shorthands", () => {
  it("askBeforeChanges: read-only runs, anything else is asked about", () => {
    expect(decide(Policy.askBeforeChanges, "read", { path: "a" }, readOnly).decision).toBe("allow")
    expect(decide(Policy.askBeforeChanges, "append", { path: "a" })).toStrictEqual({
      decision: "ask",
      rule: undefined,
      reason: "the tool is not read-only"
    })
  })

  it("shorthands go first, deny before ask before allow, whatever order the flags came in", () => {
    const policy = Policy.withShorthands(Policy.askBeforeChanges, { allow: ["app*"], deny: ["append"], ask: ["read"] })
    expect(policy.rules?.map((r) => [r.tool, r.decision, r.reason])).toStrictEqual([
      ["append", "deny", `--deny "append"`],
      ["read", "ask", `--ask "read"`],
      ["app*", "allow", `--allow "app*"`],
      [undefined, "allow", undefined]
    ])
    expect(decide(policy, "append", {}).decision).toBe("deny")
    expect(decide(policy, "read", {}, readOnly).decision).toBe("ask")
    expect(decide(policy, "apply", {}).decision).toBe("allow")
    expect(Result.map(Policy.compile(Policy.withShorthands({}, { deny: ["[z-a]"] })), () => "compiled")).toStrictEqual(
      Result.fail(
        new Policy.InvalidPolicy({
          path: "rules[0].tool",
          problem: "not a glob that compiles: the range 'z-a' is backwards"
        })
      )
    )
  })
})

describe("inside another file's Schema (a scenario file)", () => {
  it("the policy and the scripted approvals keep their paths and their refusals", () => {
    const File = Schema.Struct({
      policy: Schema.optionalKey(Policy.Policy),
      approvals: Schema.optionalKey(Approver.ScriptedAnswers)
    })
    const decode = SchemaParser.decodeUnknownResult(File)
    const paths = (json: unknown) => {
      const decoded = decode(json, { errors: "first", onExcessProperty: "error" })
      return Result.isFailure(decoded)
        ? SchemaIssue.makeFormatterStandardSchemaV1()(decoded.failure).issues.map((i) => [
            i.path?.map((p) => (typeof p === "object" ? p.key : p)),
            i.message
          ])
        : "decoded"
    }
    expect(paths({ policy: { default: "deny" }, approvals: [{ tool_use_id: "c2", answer: "no" }] })).toBe("decoded")
    expect(paths({ policy: { rules: [{ tool: "{a", decision: "deny" }] } })).toStrictEqual([
      [["policy", "rules", 0, "tool"], "not a glob that compiles: missing closing '}' (use '\\{' for a literal '{')"]
    ])
    expect(paths({ approvals: [{ answer: "yes", tool_use: "c1" }] })).toStrictEqual([
      [["approvals", 0, "tool_use"], "Expected no excess property"]
    ])
  })
})
