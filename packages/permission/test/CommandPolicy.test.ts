/**
 * Rules on commands, through `Policy.compile` and `Policy.decide`: decoding (a pattern that is
 * empty or does not parse refused at its JSON path), the dodging suite (`deny rm -rf *` denies
 * every spelling of it), allow-lists (`allow git status` allows only that), opaque commands
 * (decided as the worst any command could get), the shorthands, `Unmatched`, and hostile input
 * denied with a problem.
 */
import { Tool } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { Command, Policy, Unmatched } from "../src/index.ts"

const annotations = Tool.defaultAnnotations
const compile = (policy: Policy.Policy): Policy.Compiled => Result.getOrThrow(Policy.compile(policy))

/** The verdict on a `command { program, args }` call with these words (English fields, declared). */
const onArgv = (policy: Policy.Policy, ...words: ReadonlyArray<string>): Policy.Verdict =>
  Policy.decide(compile(policy), { name: "command", input: { program: words[0], args: words.slice(1) } }, annotations, {
    program: "program",
    args: "arguments"
  })

/** The verdict on a `shell { line }` call. */
const onLine = (policy: Policy.Policy, line: string): Policy.Verdict =>
  Policy.decide(compile(policy), { name: "shell", input: { line } }, annotations, { line: "shell" })

const invalid = (json: unknown): string => {
  const decoded = Policy.decode(json)
  return Result.isFailure(decoded) ? decoded.failure.message : "decoded"
}

describe("decoding", () => {
  it("a rule with `command`: one pattern or a non-empty list", () => {
    const json = {
      rules: [
        { command: "git push *", decision: "ask" },
        { command: ["rm -rf *", "dd *"], tool: "shell", decision: "deny", reason: "no" }
      ]
    }
    expect(Policy.decode(json)).toStrictEqual(Result.succeed(json))
  })

  it.each([
    [
      { rules: [{ decision: "allow" }, { command: "", decision: "deny" }] },
      "rules[1].command: not a command pattern: a command pattern must not be empty"
    ],
    [
      { rules: [{ command: ["ls", "git status; rm"], decision: "allow" }] },
      "rules[0].command[1]: not a command pattern: a pattern is one command written out: ';' is not allowed unquoted (quote it to match it literally)"
    ],
    [{ rules: [{ command: "rm 'x", decision: "deny" }] }, "rules[0].command: not a command pattern: a ' is not closed"],
    [
      { rules: [{ command: "ls [z-a]", decision: "deny" }] },
      "rules[0].command: not a command pattern: the word '[z-a]': the range 'z-a' is backwards"
    ],
    [
      { rules: [{ command: [], decision: "deny" }] },
      "rules[0].command: expected a value with a length of at least 1, got []"
    ],
    [
      { rules: [{ command: 7, decision: "deny" }] },
      "rules[0].command: expected a command pattern or a non-empty list of command patterns, got 7"
    ],
    [{ rules: [{ commands: "ls", decision: "allow" }] }, "rules[0].commands: unexpected field"]
  ])("%j is refused at its path", (json, message) => {
    expect(invalid(json)).toBe(message)
  })

  it("a policy built in code is checked like one read from a file", () => {
    const compiled = Policy.compile({ rules: [{ command: "git status && rm", decision: "allow" }] })
    expect(Result.isFailure(compiled) && compiled.failure.path).toBe("rules[0].command")
  })
})

const denyRm: Policy.Policy = {
  rules: [{ command: "rm -rf *", decision: "deny", reason: "no rm -rf" }],
  default: "allow"
}

describe("the dodging suite: `deny rm -rf *` denies every spelling", () => {
  it.each([
    ["rm", "-rf", "x"],
    ["rm", "-fr", "x"],
    ["rm", "-r", "-f", "x"],
    ["rm", "-f", "x", "-r"],
    ["/bin/rm", "-rf", "x"],
    ["./rm", "-rf", "x"],
    ["../x/rm", "-rf", "x"],
    ["bin//rm", "-rf", "x"],
    ["env", "rm", "-rf", "x"],
    ["env", "-i", "FOO=1", "rm", "-rf", "x"],
    ["env", "-S", "rm -rf x"],
    ["nice", "-n", "5", "rm", "-rf", "x"],
    ["timeout", "5", "rm", "-rf", "x"],
    ["sudo", "-u", "root", "rm", "-rf", "x"],
    ["sh", "-c", "rm -rf x"],
    ["bash", "-lc", "cd /tmp && rm -rf x"],
    ["sh", "-c", "r'm' -rf x"],
    ["sh", "-c", "\\rm -r\\f x"],
    ["xargs", "rm", "-rf"],
    ["xargs", "rm"],
    ["busybox", "rm", "-rf", "x"],
    ["find", ".", "-exec", "rm", "-rf", "{}", ";"],
    ["sh", "-c", "sh -c 'env nice rm -rf x'"]
  ])("%s %s %s %s", (...words) => {
    expect(onArgv(denyRm, ...words)).toStrictEqual({ decision: "deny", rule: 0, reason: "no rm -rf" })
  })

  it.each([
    "rm -rf x",
    "ls; rm -rf x",
    "ls && r'm' -fr x",
    "cd /tmp\nrm -r -f x",
    "FOO=1 /usr/bin/rm -rf x 2>/dev/null",
    "env -i nice -n 5 timeout 5 rm -rf x",
    "echo x | xargs rm -rf",
    "rm *",
    "rm -f *"
  ])("the shell tool's line %j", (line) => {
    expect(onLine(denyRm, line)).toMatchObject({ decision: "deny", rule: 0 })
  })

  it("a command that cannot be read is decided as any command: denied, saying why", () => {
    expect(onArgv(denyRm, "sh", "-c", "$X")).toStrictEqual({
      decision: "deny",
      rule: 0,
      reason: "no rm -rf",
      opaque: "$X"
    })
    expect(onLine(denyRm, "eval $(echo rm -rf x)")).toMatchObject({ decision: "deny", opaque: "$(echo rm -rf x)" })
    expect(onLine(denyRm, "(rm -rf x)")).toMatchObject({ decision: "deny", opaque: "(rm -rf x)" })
  })

  it("what it does not name runs", () => {
    for (const words of [
      ["rm", "x"],
      ["rm", "-r", "x"],
      ["ls", "-rf"],
      ["sh", "-c", "ls -la"],
      ["rm", "--", "-rf"]
    ]) {
      expect(onArgv(denyRm, ...words)).toStrictEqual({ decision: "allow", rule: undefined, reason: undefined })
    }
    expect(onLine(denyRm, "rm ./*.log")).toMatchObject({ decision: "allow" })
  })
})

describe("allow-lists: an allow rule allows exactly what it names", () => {
  const allowList: Policy.Policy = {
    rules: [{ command: "git status", decision: "allow" }],
    default: { decision: "ask", reason: "not on the list" }
  }

  it("`allow git status` allows `git status` and nothing else", () => {
    expect(onArgv(allowList, "git", "status")).toStrictEqual({ decision: "allow", rule: 0, reason: undefined })
    expect(onLine(allowList, "git status")).toMatchObject({ decision: "allow" })
    for (const words of [
      ["git", "status", "-s"],
      ["git", "-c", "x=y", "status"],
      ["/usr/bin/git", "status"],
      ["./git", "status"],
      ["env", "git", "status"],
      ["sh", "-c", "git status"]
    ]) {
      expect(onArgv(allowList, ...words)).toMatchObject({ decision: "ask", reason: "not on the list" })
    }
    expect(onLine(allowList, "git status; rm -rf x")).toMatchObject({ decision: "ask" })
    expect(onLine(allowList, "git status && git push")).toMatchObject({ decision: "ask" })
  })

  it("a wrapped command runs when every reading is allowed: the wrapper and what it runs", () => {
    const withShell: Policy.Policy = {
      rules: [{ command: ["git status", "git diff *", "sh -c *"], decision: "allow" }],
      default: "ask"
    }
    expect(onArgv(withShell, "sh", "-c", "git status && git diff --stat")).toMatchObject({ decision: "allow" })
    expect(onArgv(withShell, "sh", "-c", "git status; rm -rf x")).toMatchObject({ decision: "ask" })
    expect(onArgv(withShell, "sh", "-c", "git status $X")).toMatchObject({ decision: "ask", opaque: "$X" })
  })

  it("an opaque command with an allow-list and a deny default is denied, saying why", () => {
    const strict: Policy.Policy = { rules: [{ command: "ls *", decision: "allow" }], default: "deny" }
    expect(onLine(strict, "ls `pwd`")).toStrictEqual({
      decision: "deny",
      rule: undefined,
      reason: undefined,
      opaque: "`pwd`"
    })
  })
})

describe("an opaque command gets the worst any command could get", () => {
  it("any one of the deny and ask rules with a command, or none of them; never an allow rule's command", () => {
    const policy: Policy.Policy = {
      rules: [
        { command: "git status", decision: "allow" },
        { command: "git push *", decision: "ask" },
        { command: "rm -rf *", decision: "deny" }
      ],
      default: "allow"
    }
    // `ask git push *` comes first, but the hidden command could be `rm -rf`: denied.
    expect(onArgv(policy, "sh", "-c", "$CMD")).toStrictEqual({
      decision: "deny",
      rule: 2,
      reason: undefined,
      opaque: "$CMD"
    })
    const asks: Policy.Policy = { rules: [{ command: "git push *", decision: "ask" }], default: "allow" }
    expect(onArgv(asks, "sh", "-c", "$CMD")).toMatchObject({ decision: "ask", rule: 0, opaque: "$CMD" })
  })

  it("rules without a command decide it as they decide any call, in order", () => {
    const toolFirst: Policy.Policy = {
      rules: [
        { tool: "command", decision: "allow" },
        { command: "rm *", decision: "deny" }
      ]
    }
    expect(onArgv(toolFirst, "sh", "-c", "$X")).toMatchObject({ decision: "allow", rule: 0 })
    const otherTool: Policy.Policy = { rules: [{ tool: "shell", command: "rm *", decision: "deny" }], default: "allow" }
    expect(onArgv(otherTool, "sh", "-c", "$X")).toMatchObject({ decision: "allow", rule: undefined })
    expect(onLine(otherTool, "$X")).toMatchObject({ decision: "deny", rule: 0 })
  })
})

describe("words the gate cannot see, and the program's spellings, never stop at a milder rule", () => {
  it("a rule `xargs`'s input or a glob would only possibly match does not end the search", () => {
    const policy: Policy.Policy = {
      rules: [
        { command: "rm -v *", decision: "ask" },
        { command: "rm -rf *", decision: "deny" }
      ],
      default: "allow"
    }
    expect(onArgv(policy, "rm", "-rf", "x")).toMatchObject({ decision: "deny", rule: 1 })
    // Its input could add -v (ask), but it is rm -rf whatever it adds: denied.
    expect(onArgv(policy, "xargs", "rm", "-rf", "x")).toMatchObject({ decision: "deny", rule: 1 })
    expect(onLine(policy, "rm -rf *")).toMatchObject({ decision: "deny", rule: 1 })
    // It could be rm -rf (a file named -rf): the worst it may get.
    expect(onLine(policy, "rm *.log")).toMatchObject({ decision: "deny", rule: 1 })
    expect(onLine(policy, "rm -v x")).toMatchObject({ decision: "ask", rule: 0 })
  })

  it("each spelling of the program is decided: `./rm` is also `rm`", () => {
    const policy: Policy.Policy = {
      rules: [
        { command: ".* *", decision: "ask" },
        { command: "rm -rf *", decision: "deny" }
      ],
      default: "allow"
    }
    expect(onArgv(policy, "./rm", "-rf", "x")).toMatchObject({ decision: "deny", rule: 1 })
    expect(onArgv(policy, "./build.sh")).toMatchObject({ decision: "ask", rule: 0 })
  })

  it("an allow rule still names a path by writing it, in every reading", () => {
    const policy: Policy.Policy = { rules: [{ command: "/usr/bin/git status", decision: "allow" }], default: "deny" }
    expect(onArgv(policy, "/usr/bin/git", "status")).toMatchObject({ decision: "allow", rule: 0 })
    expect(onArgv(policy, "git", "status")).toMatchObject({ decision: "deny" })
  })
})

describe("a rule with a command matches only tools that have one", () => {
  it("a tool without a command: the rule does not match; the other conditions still hold as today", () => {
    const policy: Policy.Policy = {
      rules: [
        { command: "*", decision: "deny" },
        { args: { path: "secrets/**" }, decision: "deny", reason: "secret" }
      ],
      default: "allow"
    }
    const read = (input: unknown) => Policy.decide(compile(policy), { name: "read", input }, annotations)
    expect(read({ path: "notes/a" })).toMatchObject({ decision: "allow" })
    expect(read({ path: "notes/../secrets/k" })).toMatchObject({ decision: "deny", rule: 1 })
    expect(onArgv(policy, "ls")).toMatchObject({ decision: "deny", rule: 0 })
  })

  it("a tool whose fields are named as their meanings needs no declaration; Spanish fields by meaning", () => {
    const policy = compile(denyRm)
    expect(
      Policy.decide(policy, { name: "x", input: { program: "rm", arguments: ["-rf", "x"] } }, annotations)
    ).toMatchObject({ decision: "deny" })
    expect(
      Policy.decide(policy, { name: "comando", input: { programa: "rm", argumentos: ["-fr", "x"] } }, annotations, {
        programa: "program",
        argumentos: "arguments"
      })
    ).toMatchObject({ decision: "deny" })
    expect(
      Policy.decide(policy, { name: "consola", input: { línea: "ls; rm -rf x" } }, annotations, { línea: "shell" })
    ).toMatchObject({ decision: "deny" })
  })

  it("combined with tool, annotations and args: every stated condition must hold", () => {
    const policy: Policy.Policy = {
      rules: [
        {
          tool: "command",
          annotations: { readOnly: false },
          args: { cwd: "/srv/**" },
          command: "rm *",
          decision: "deny"
        }
      ],
      default: "allow"
    }
    const decide = (input: unknown, name = "command") =>
      Policy.decide(compile(policy), { name, input }, annotations, { program: "program", args: "arguments" })
    expect(decide({ program: "rm", args: ["x"], cwd: "/srv/app" })).toMatchObject({ decision: "deny" })
    expect(decide({ program: "rm", args: ["x"], cwd: "/home" })).toMatchObject({ decision: "allow" })
    expect(decide({ program: "rm", args: ["x"], cwd: "/srv/app" }, "other")).toMatchObject({ decision: "allow" })
    expect(decide({ program: "ls", args: ["x"], cwd: "/srv/app" })).toMatchObject({ decision: "allow" })
  })
})

describe("hostile input is denied with a problem, never a throw", () => {
  const policy = compile(denyRm)
  const decide = (input: unknown) => Policy.decide(policy, { name: "command", input }, annotations)

  it("a getter that throws on the arguments, a Proxy, a revoked Proxy", () => {
    const getter = {
      program: "ls",
      get arguments(): ReadonlyArray<string> {
        throw new Error("boom")
      }
    }
    expect(decide(getter)).toStrictEqual({
      decision: "deny",
      rule: undefined,
      reason: undefined,
      problem: { _tag: "Unreadable", field: "arguments", message: "boom" }
    })
    const proxy = new Proxy(
      { program: "ls", arguments: ["-l"] },
      {
        get: () => {
          throw new Error("trap")
        }
      }
    )
    expect(decide(proxy)).toMatchObject({ decision: "deny", problem: { _tag: "Unreadable", message: "trap" } })
    const { proxy: revoked, revoke } = Proxy.revocable({ program: "ls" }, {})
    revoke()
    expect(decide(revoked)).toMatchObject({ decision: "deny", problem: { _tag: "Unreadable" } })
  })

  it("huge lists, huge lines, deep nesting", () => {
    expect(decide({ program: "ls", arguments: Array.from({ length: 100_000 }, () => "x") })).toMatchObject({
      decision: "deny",
      problem: { _tag: "CommandTooLarge", limit: "words" }
    })
    expect(decide({ shell: "x".repeat(1 << 20) })).toMatchObject({
      decision: "deny",
      problem: { _tag: "CommandTooLarge", limit: "characters", size: 1 << 20, max: Command.maxLength }
    })
    let nested = "ls"
    for (let i = 0; i < 9; i++) nested = `sh -c ${Command.quote(nested)}`
    expect(decide({ shell: nested })).toMatchObject({
      decision: "deny",
      problem: { _tag: "CommandTooLarge", limit: "depth" }
    })
    const cyclic: Array<unknown> = ["-l"]
    cyclic.push(cyclic)
    expect(decide({ program: "ls", arguments: cyclic })).toMatchObject({
      decision: "deny",
      opaque: "its field 'arguments' is not a list of texts"
    })
  })

  it("the readings of the command multiply with the other fields' within maxReadings", () => {
    const both = compile({
      rules: [
        { args: { path: "x" }, decision: "deny" },
        { command: "rm *", decision: "deny" }
      ],
      default: "allow"
    })
    const paths = Array.from({ length: 600 }, (_, i) => `p${i}`)
    expect(
      Policy.decide(both, { name: "c", input: { path: paths, program: "env", arguments: ["ls"] } }, annotations)
    ).toMatchObject({ decision: "deny", problem: { _tag: "TooManyReadings" } })
  })

  it("decided in bounded time: many readings, many words, many rules", () => {
    const rules: Array<Policy.Rule> = Array.from({ length: 40 }, (_, i) => ({
      command: `* -a${i} x * y * z * w${i} * -- *`,
      decision: (["allow", "ask", "deny"] as const)[i % 3] ?? "ask"
    }))
    const many = compile({ rules, default: "allow" })
    const words = (n: number, word: (i: number) => string) => Array.from({ length: n }, (_, i) => word(i))
    for (const input of [
      { program: "sudo", arguments: ["-Q", "-Q", "nice", "-Q", "-Q", "timeout", "-Q", "5", ...words(1000, () => "x")] },
      { program: "ls", arguments: words(1020, (i) => (i % 2 ? "-ab" : "x")) },
      { shell: words(1000, (i) => `c${i}`).join(";") },
      { program: "env", arguments: [...words(7, () => "env"), ...words(1000, () => "-x")] },
      { shell: `rm ${words(1000, () => "*").join(" ")}` }
    ]) {
      const started = performance.now()
      Policy.decide(many, { name: "c", input }, annotations)
      expect(performance.now() - started).toBeLessThan(2000)
    }
  })

  it("a policy without command rules never reads a command", () => {
    const plain = compile({ rules: [{ tool: "read", decision: "deny" }], default: "allow" })
    const getter = {
      get program(): string {
        throw new Error("boom")
      }
    }
    expect(Policy.decide(plain, { name: "command", input: getter }, annotations)).toMatchObject({ decision: "allow" })
  })
})

describe("shorthands and Unmatched", () => {
  it("--deny-command, --ask-command, --allow-command: strictest first, each with its flag as reason", () => {
    const policy = Policy.withShorthands(
      { rules: [{ tool: "read", decision: "allow" }] },
      {
        allowCommand: ["git status"],
        ask: ["write"],
        askCommand: ["git push *"],
        denyCommand: ["rm -rf *"],
        deny: ["delete"]
      }
    )
    expect(policy.rules).toStrictEqual([
      { tool: "delete", decision: "deny", reason: '--deny "delete"' },
      { command: "rm -rf *", decision: "deny", reason: '--deny-command "rm -rf *"' },
      { tool: "write", decision: "ask", reason: '--ask "write"' },
      { command: "git push *", decision: "ask", reason: '--ask-command "git push *"' },
      { command: "git status", decision: "allow", reason: '--allow-command "git status"' },
      { tool: "read", decision: "allow" }
    ])
    expect(onArgv(policy, "rm", "-fr", "/")).toMatchObject({ decision: "deny", reason: '--deny-command "rm -rf *"' })
    expect(onArgv(policy, "git", "-C", "x", "push")).toMatchObject({
      decision: "ask",
      reason: '--ask-command "git push *"'
    })
    expect(onArgv(policy, "git", "status")).toMatchObject({ decision: "allow", reason: '--allow-command "git status"' })
  })

  it("a shorthand pattern that does not parse is refused at its rule", () => {
    const compiled = Policy.compile(Policy.withShorthands({}, { denyCommand: ["rm; ls"] }))
    expect(Result.isFailure(compiled) && compiled.failure.message).toBe(
      "rules[0].command: not a command pattern: a pattern is one command written out: ';' is not allowed unquoted (quote it to match it literally)"
    )
  })

  it("command rules are not tool globs: Unmatched says nothing about them", () => {
    const policy = Policy.withShorthands(
      { rules: [{ command: "zzz *", decision: "deny" }] },
      { denyCommand: ["rm -rf *"], allowCommand: ["qqq"] }
    )
    expect(Unmatched.find(policy, ["read", "write"])).toStrictEqual([])
    const withTool = { rules: [{ tool: "comand", command: "rm *", decision: "deny" as const }] }
    expect(Unmatched.find(withTool, ["command"]).map((u) => u.where)).toStrictEqual(["rules[0].tool"])
  })
})
