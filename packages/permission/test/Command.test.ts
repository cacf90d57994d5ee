/**
 * `Command`: patterns (parsed, refused), matching (exactly for allow, as a floor for deny and
 * ask: flag bundles, long flags, `*`, globs, the program's spellings), and the readings of a
 * call's command (wrappers, shells, opaque constructs, bounds, hostile fields).
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { Command, Glob } from "../src/index.ts"

const pattern = (text: string): Command.Pattern => Result.getOrThrow(Command.parsePattern(text))
const argv = (...words: ReadonlyArray<string>): Command.Argv => ({ _tag: "Argv", words, globs: [], open: false })
const line = (text: string): Command.Argv => {
  const readings = Result.getOrThrow(Command.readingsOf({ shell: text }, undefined))
  const [first] = readings
  if (first?._tag !== "Argv" || readings.length !== 1) throw new Error(`not one command: ${text}`)
  return first
}
const split = (command: string): Command.Argv => argv(...command.split(" "))

/** `[allow matches, deny matches]` for a pattern and a command. */
const both = (p: string, command: Command.Reading): [boolean, boolean] => [
  Command.matches(pattern(p), command, "allow"),
  Command.matches(pattern(p), command, "deny")
]

describe("Command.parsePattern", () => {
  it("reads the program, flags, words and `*`", () => {
    const parsed = pattern("rm -rf --force --out='*.txt' -- -x 'a b' *")
    expect(parsed.source).toBe("rm -rf --force --out='*.txt' -- -x 'a b' *")
    expect(
      parsed.items.map((i) =>
        i._tag === "Word"
          ? `word ${i.glob.source}`
          : i._tag === "Long"
            ? `long ${i.name}=${i.value?.source}`
            : i._tag === "Short"
              ? `short ${i.letter}`
              : "rest"
      )
    ).toEqual(["short r", "short f", "long force=undefined", "long out=\\*\\.txt", "word -x", "word a\\ b", "rest"])
  })

  it.each([
    [42, "a command pattern must be a string"],
    ["", "a command pattern must not be empty"],
    ["   ", "a command pattern must not be empty"],
    ["'' x", "its program must not be empty"],
    [
      "git status; rm -rf x",
      "a pattern is one command written out: ';' is not allowed unquoted (quote it to match it literally)"
    ],
    [
      "git push && rm",
      "a pattern is one command written out: '&' is not allowed unquoted (quote it to match it literally)"
    ],
    ["rm $HOME", "a pattern is one command written out: '$' is not allowed unquoted (quote it to match it literally)"],
    ["rm 'x", "a ' is not closed"],
    ["rm x\\", "it ends with an escape '\\' that escapes nothing"],
    ["rm -r*", "the flags '-r*': short flags are letters, not a glob"],
    ["git --for*", "the flag '--for*': a flag's name is written out, not a glob"],
    ["git --=x", "the flag '--=x' has no name"],
    ["ls [z-a]", "the word '[z-a]': the range 'z-a' is backwards"],
    ["[z-a] x", "its program '[z-a]': the range 'z-a' is backwards"],
    ["git --out=[z-a]", "the value of '--out=[z-a]': the range 'z-a' is backwards"],
    [`ls ${"a ".repeat(64)}`, "a command pattern must have at most 64 words"],
    [`ls ${"a".repeat(4096)}`, "a command pattern must be at most 4096 characters long"]
  ])("refuses %j", (source, problem) => {
    expect(Command.parsePattern(source)).toEqual(Result.fail(problem))
  })
})

describe("flags: bundled or not, in any order", () => {
  it.each([
    ["rm -rf x", [true, true]],
    ["rm -fr x", [true, true]],
    ["rm -r -f x", [true, true]],
    ["rm -f -r x", [true, true]],
    ["rm -r x", [false, false]],
    ["rm -rfv x", [false, true]],
    ["rm -v -rf x", [false, true]],
    ["rm -rf x y", [false, true]],
    ["rm -rf", [false, false]],
    ["rm -- -rf x", [false, false]]
  ])("`rm -rf x` against %j: [allow, deny]", (command, expected) => {
    expect(both("rm -rf x", split(command))).toEqual(expected)
  })

  it("a flag after the words still counts for deny, not for an exact allow", () => {
    expect(both("rm -rf *", split("rm x -rf"))).toEqual([false, true])
    expect(both("rm -rf *", split("rm -f x -r"))).toEqual([false, true])
  })

  it("`--` ends the flags in the pattern and in the command", () => {
    expect(both("rm -- -rf", split("rm -- -rf"))).toEqual([true, true])
    expect(both("rm -- -rf", split("rm -rf"))).toEqual([false, false])
  })
})

describe("long flags", () => {
  it.each([
    ["git push --force origin", [true, true]],
    ["git push origin --force", [false, true]],
    ["git push --force=yes origin", [false, true]],
    ["git push --forc origin", [false, true]],
    ["git push --force-with-lease origin", [false, false]],
    ["git push origin", [false, false]],
    ["git push -f origin", [false, false]]
  ])("`git push --force *` against %j: [allow, deny]", (command, expected) => {
    expect(both("git push --force *", split(command))).toEqual(expected)
  })

  it("`--name=glob` checks the value: written with `=`, or the next word", () => {
    expect(both("curl --output=*.txt *", split("curl --output=a.txt u"))).toEqual([true, true])
    expect(both("curl --output=*.txt *", split("curl --output=a.sh u"))).toEqual([false, false])
    expect(Command.matches(pattern("curl --output=*.txt"), split("curl --output a.txt"), "deny")).toBe(true)
  })
})

describe("`*` and words", () => {
  it.each([
    ["git status", [true, true]],
    ["git status -s", [false, true]],
    ["git status x", [false, true]],
    ["git -c x=y status", [false, true]],
    ["git --no-pager status", [false, true]],
    ["git stash", [false, false]]
  ])("`git status` against %j: [allow, deny]", (command, expected) => {
    expect(both("git status", split(command))).toEqual(expected)
  })

  it.each([
    ["git status", true],
    ["git status -s", true],
    ["git status -s -- x", true],
    ["git -p status", false],
    ["git --exec-path=/tmp status", false]
  ])("`allow git status *` against %j", (command, expected) => {
    expect(Command.matches(pattern("git status *"), split(command), "allow")).toBe(expected)
  })

  it.each([
    ["git push", true],
    ["git -C /tmp push", true],
    ["git --no-pager push --force origin", true],
    ["git -c push.default=x pull", false],
    ["git pull", false]
  ])("`ask git push *` against %j (a floor: its words in order among the command's)", (command, expected) => {
    expect(Command.matches(pattern("git push *"), split(command), "ask")).toBe(expected)
  })

  it("more flags next to an allow rule's `*` are taken by it; flags elsewhere are not", () => {
    expect(both("rm -f *", split("rm -v -f x"))).toEqual([true, true])
    expect(both("rm -f *", split("rm -f x -v"))).toEqual([true, true])
    expect(both("rm -f x", split("rm -v -f x"))).toEqual([false, true])
    expect(both("git push * --force *", split("git push origin --force"))).toEqual([true, true])
  })

  it("`*` takes zero or more words, anywhere", () => {
    expect(both("git * status", split("git status"))).toEqual([true, true])
    expect(both("git * status", split("git -C /x status"))).toEqual([true, true])
    expect(both("ls *", split("ls"))).toEqual([true, true])
  })

  it("globs on one word; `*` and `?` match `/` too (an argument is not a path)", () => {
    expect(both("cat /etc/*", split("cat /etc/ssl/private/key"))).toEqual([true, true])
    expect(both("cat a?b", split("cat a/b"))).toEqual([true, true])
    expect(both("git pu{sh,ll}", split("git pull"))).toEqual([true, true])
    expect(both("ls .*", split("ls .."))).toEqual([true, true])
    expect(both("ls '*'", split("ls x"))).toEqual([false, false])
    expect(both("ls '*'", split("ls *"))).toEqual([true, true])
  })

  it("a value attached to a short flag counts as a word for deny", () => {
    expect(both("head -n 5", split("head -n5"))).toEqual([false, true])
    expect(both("git -C /etc *", split("git -C/etc status"))).toEqual([false, true])
  })

  it("an empty word", () => {
    expect(both("git commit -m ''", argv("git", "commit", "-m", ""))).toEqual([true, true])
    expect(both("git commit -m ''", argv("git", "commit", "-m", "x"))).toEqual([false, false])
  })
})

describe("the program: any spelling for deny, as written for allow", () => {
  it.each([
    ["rm", [true, true]],
    ["/bin/rm", [false, true]],
    ["/usr/bin/rm", [false, true]],
    ["./rm", [false, true]],
    ["../x/rm", [false, true]],
    ["bin//rm", [false, true]],
    ["RM", [false, true]],
    ["rm.exe", [false, true]],
    ["=rm", [false, true]],
    ["rmdir", [false, false]]
  ])("`rm x` against %j: [allow, deny]", (program, expected) => {
    expect(both("rm x", argv(program, "x"))).toEqual(expected)
  })

  it("an allow rule names a path by writing it", () => {
    expect(both("/usr/bin/git status", argv("/usr/bin/git", "status"))).toEqual([true, true])
    expect(both("{git,/usr/bin/git} status", argv("/usr/bin/git", "status"))).toEqual([true, true])
    expect(both("* -rf *", argv("/bin/rm", "-rf", "x"))).toEqual([true, true])
  })
})

describe("words the gate cannot see", () => {
  it("a glob the shell expands may be a file named -rf: any flag for deny, only `*` for allow", () => {
    const globbed = line("rm *.log")
    expect(globbed.globs).toEqual([1])
    expect(both("rm -rf *", globbed)).toEqual([false, true])
    expect(both("rm *.log", globbed)).toEqual([false, true])
    expect(both("rm *", globbed)).toEqual([true, true])
    // `./*.log` cannot start with `-`: no flag hides there.
    expect(both("rm -rf *", line("rm ./*.log"))).toEqual([false, false])
  })

  it("a glob may expand to a pattern's word", () => {
    expect(Command.matches(pattern("git push *"), line("git pu*"), "deny")).toBe(true)
    expect(Command.matches(pattern("git push *"), line("git a*"), "deny")).toBe(false)
  })

  it("xargs adds words: any deny on the program matches; allow needs a trailing `*`", () => {
    const open: Command.Argv = { _tag: "Argv", words: ["rm"], globs: [], open: true }
    expect(both("rm -rf x", open)).toEqual([false, true])
    expect(both("grep *", open)).toEqual([false, false])
    expect(both("rm *", open)).toEqual([true, true])
  })

  it("an opaque reading matches every deny and ask pattern, and no allow one", () => {
    const opaque: Command.Opaque = { _tag: "Opaque", construct: "$X" }
    expect(Command.matches(pattern("rm -rf *"), opaque, "deny")).toBe(true)
    expect(Command.matches(pattern("git push *"), opaque, "ask")).toBe(true)
    expect(Command.matches(pattern("*"), opaque, "allow")).toBe(false)
  })
})

/** The readings of a command given as words, each as text (`OPAQUE(…)` for an opaque one). */
const readings = (program: string, ...args: ReadonlyArray<string>): ReadonlyArray<string> | Command.Problem => {
  const found = Command.readingsOf({ program, arguments: args }, undefined)
  if (Result.isFailure(found)) return found.failure
  return found.success.map((r) => (r._tag === "Opaque" ? `OPAQUE(${r.construct})` : r.words.join(" ")))
}

describe("Command.readingsOf: wrappers are unwrapped, recursively", () => {
  it.each([
    ["env", "rm", "-rf", "x"],
    ["env", "-i", "FOO=1", "rm", "-rf", "x"],
    ["env", "-u", "HOME", "-C", "/tmp", "--", "rm", "-rf", "x"],
    ["env", "-", "rm", "-rf", "x"],
    ["env", "--ignore-env", "rm", "-rf", "x"],
    ["env", "-S", "FOO=1 rm -rf x"],
    ["env", "-S", "-i rm -rf 'x'"],
    ["command", "-p", "rm", "-rf", "x"],
    ["exec", "-a", "name", "rm", "-rf", "x"],
    ["builtin", "rm", "-rf", "x"],
    ["nice", "rm", "-rf", "x"],
    ["nice", "-n", "5", "rm", "-rf", "x"],
    ["nice", "-5", "rm", "-rf", "x"],
    ["nice", "--adjustment=5", "rm", "-rf", "x"],
    ["nohup", "rm", "-rf", "x"],
    ["time", "-p", "rm", "-rf", "x"],
    ["timeout", "5", "rm", "-rf", "x"],
    ["timeout", "-s", "KILL", "-k", "1", "5s", "rm", "-rf", "x"],
    ["stdbuf", "-oL", "-e", "0", "rm", "-rf", "x"],
    ["setsid", "-w", "rm", "-rf", "x"],
    ["ionice", "-c", "3", "rm", "-rf", "x"],
    ["chrt", "-b", "0", "rm", "-rf", "x"],
    ["taskset", "-c", "0,1", "rm", "-rf", "x"],
    ["taskset", "0x3", "rm", "-rf", "x"],
    ["xargs", "-0", "-n", "1", "rm", "-rf", "x"],
    ["sudo", "rm", "-rf", "x"],
    ["sudo", "-u", "root", "-E", "rm", "-rf", "x"],
    ["sudo", "--user=root", "--", "rm", "-rf", "x"],
    ["doas", "-u", "root", "rm", "-rf", "x"],
    ["busybox", "rm", "-rf", "x"],
    ["flock", "-w", "5", "/tmp/lock", "rm", "-rf", "x"],
    ["flock", "/tmp/lock", "-c", "rm -rf x"],
    ["unshare", "-r", "--mount=/x", "rm", "-rf", "x"],
    ["chroot", "/srv", "rm", "-rf", "x"],
    ["chroot", "--userspec=a:b", "/srv", "rm", "-rf", "x"],
    ["prlimit", "--nofile=10", "--", "rm", "-rf", "x"],
    ["prlimit", "-n10", "rm", "-rf", "x"],
    ["script", "-qc", "rm -rf x", "/dev/null"],
    ["script", "--command=rm -rf x"],
    ["watch", "-n", "1", "rm", "-rf", "x"],
    ["watch", "rm -rf x"],
    ["su", "-c", "rm -rf x"],
    ["su", "root", "--command=rm -rf x"],
    ["runuser", "-u", "app", "-c", "rm -rf x"],
    ["find", ".", "-exec", "rm", "-rf", "x", ";"],
    ["find", ".", "-execdir", "rm", "-rf", "x", "{}", "+"],
    ["sh", "-c", "rm -rf x"],
    ["bash", "-lc", "cd /tmp && rm -rf x"],
    ["bash", "-e", "-x", "-c", "rm -rf x"],
    ["bash", "-o", "pipefail", "-c", "rm -rf x | cat"],
    ["zsh", "-c", "rm -rf x"],
    ["dash", "-c", "--", "rm -rf x"],
    ["/bin/sh", "-c", "r'm' -rf x"],
    ["busybox", "sh", "-c", "rm -rf x"],
    ["nice", "env", "timeout", "5", "sudo", "sh", "-c", "xargs rm -rf x"]
  ])("%s %j…: one reading is rm with -rf", (program, ...args) => {
    const found = readings(program, ...args)
    expect(Array.isArray(found)).toBe(true)
    expect((found as ReadonlyArray<string>).some((r) => /^rm -rf x( \{\})?$/.test(r))).toBe(true)
  })

  it("the wrapper is a reading too, and an option it does not know is read both ways", () => {
    expect(readings("sudo", "-Q", "rm", "-rf", "x")).toEqual(["sudo -Q rm -rf x", "rm -rf x", "x"])
    expect(readings("env", "rm", "-rf", "x")).toEqual(["env rm -rf x", "rm -rf x"])
  })

  it("xargs: the command takes more words from its input; a replaced program is opaque", () => {
    const found = Result.getOrThrow(Command.readingsOf({ program: "xargs", arguments: ["rm"] }, undefined))
    expect(found[1]).toEqual({ _tag: "Argv", words: ["rm"], globs: [], open: true })
    expect(readings("xargs", "-I{}", "{}", "x")).toEqual(["xargs -I{} {} x", "OPAQUE(xargs running its input ({}))"])
    expect(readings("xargs", "-I{}", "sh", "-c", "rm {}")).toEqual([
      "xargs -I{} sh -c rm {}",
      "sh -c rm {}",
      "OPAQUE(sh rm {})"
    ])
  })

  it("a line with more commands gives each of them", () => {
    expect(readings("sh", "-c", "ls; cd /tmp && rm -rf x | tee log")).toEqual([
      "sh -c ls; cd /tmp && rm -rf x | tee log",
      "ls",
      "cd /tmp",
      "rm -rf x",
      "tee log"
    ])
  })
})

describe("Command.readingsOf: what cannot be read is opaque", () => {
  it.each([
    [["sh", "-c", "$CMD"], "$CMD"],
    [["sh", "-c", "rm -rf `cat f`"], "`cat f`"],
    [["bash", "-c", "eval rm -rf x"], "eval"],
    [["bash", "-c", "source ./x.sh"], "source"],
    [["sh", "-c", ". ./x.sh"], "."],
    [["sh", "-c", "trap 'rm -rf x' EXIT"], "trap"],
    [["sh", "-c", "alias x=rm"], "alias"],
    [["sh", "x.sh"], "sh running x.sh"],
    [["bash"], "bash reading commands from its input"],
    [["bash", "-s"], "bash reading commands from its input"],
    [["fish", "-c", "rm -rf x"], "fish"],
    [["chroot", "/srv"], "chroot without a command runs a shell"],
    [["sudo", "-s"], "sudo without a command runs a shell"],
    [["su", "root"], "su without -c runs a shell"],
    [["script"], "script without a command runs a shell"],
    [["env", "-S", "rm $X"], "$X"],
    [["find", ".", "-exec", "{}", ";"], "find -exec {}"]
  ])("%j", (words, construct) => {
    const [program = "", ...args] = words
    expect(readings(program, ...args)).toContain(`OPAQUE(${construct})`)
  })

  it("a field that is not text, or not a list of texts, is opaque", () => {
    expect(Command.readingsOf({ program: 42 }, undefined)).toEqual(
      Result.succeed([{ _tag: "Opaque", construct: "its field 'program' is not text" }])
    )
    expect(readings("rm", 7 as unknown as string)).toContain("OPAQUE(its field 'arguments' is not a list of texts)")
    expect(Command.readingsOf({ program: "rm", arguments: "-rf x" }, undefined)).toEqual(
      Result.succeed([
        { _tag: "Opaque", construct: "its field 'arguments' is not a list of texts" },
        { _tag: "Argv", words: ["rm"], globs: [], open: false }
      ])
    )
    expect(Command.readingsOf({ shell: ["ls"] }, undefined)).toEqual(
      Result.succeed([{ _tag: "Opaque", construct: "its field 'shell' is not text" }])
    )
  })
})

describe("Command.readingsOf: fields by meaning", () => {
  it("a tool's own spelling (Spanish), and none for a tool without a command", () => {
    const meanings = { programa: "program", argumentos: "arguments", línea: "shell" }
    expect(readings("rm", "-rf", "x")).toEqual(["rm -rf x"])
    expect(Command.readingsOf({ programa: "rm", argumentos: ["-rf", "x"] }, meanings)).toEqual(
      Result.succeed([{ _tag: "Argv", words: ["rm", "-rf", "x"], globs: [], open: false }])
    )
    expect(Command.readingsOf({ línea: "ls" }, meanings)).toEqual(
      Result.succeed([{ _tag: "Argv", words: ["ls"], globs: [], open: false }])
    )
    expect(Command.readingsOf({ path: "x" }, undefined)).toEqual(Result.succeed([]))
    expect(Command.readingsOf("not an object", undefined)).toEqual(Result.succeed([]))
    // A field given another meaning is not read as its name's.
    expect(Command.readingsOf({ program: "rm" }, { program: "path" })).toEqual(Result.succeed([]))
  })
})

describe("Command.readingsOf: bounds and hostile fields, never a throw", () => {
  it("too many arguments, characters, or wrappers nested too deep", () => {
    expect(
      Command.readingsOf({ program: "rm", arguments: Array.from({ length: 100_000 }, () => "x") }, undefined)
    ).toEqual(Result.fail({ _tag: "CommandTooLarge", limit: "words", size: 100_001, max: Command.maxWords }))
    expect(Command.readingsOf({ shell: `ls ${"x".repeat(1_000_000)}` }, undefined)).toEqual(
      Result.fail({ _tag: "CommandTooLarge", limit: "characters", size: 1_000_003, max: Command.maxLength })
    )
    expect(Command.readingsOf({ shell: "a ".repeat(2000) }, undefined)).toEqual(
      Result.fail({ _tag: "CommandTooLarge", limit: "words", size: Command.maxWords + 1, max: Command.maxWords })
    )
    let nested = "rm -rf x"
    for (let i = 0; i < 9; i++) nested = `sh -c ${Command.quote(nested)}`
    expect(Command.readingsOf({ shell: nested }, undefined)).toEqual(
      Result.fail({ _tag: "CommandTooLarge", limit: "depth", size: Command.maxDepth + 1, max: Command.maxDepth })
    )
    expect(
      Command.readingsOf({ program: "env", arguments: [...Array.from({ length: 20 }, () => "env"), "rm"] }, undefined)
    ).toEqual(
      Result.fail({ _tag: "CommandTooLarge", limit: "depth", size: Command.maxDepth + 1, max: Command.maxDepth })
    )
    expect(Command.readingsOf({ shell: "ls;".repeat(1100) }, undefined)).toEqual(
      Result.fail({ _tag: "CommandTooLarge", limit: "words", size: Command.maxWords + 1, max: Command.maxWords })
    )
    const many = Array.from({ length: Command.maxWords }, (_, i) => `x${i}`).join(";")
    expect(Command.readingsOf({ program: "sh", arguments: ["-c", many] }, undefined)).toEqual(
      Result.fail({ _tag: "TooManyReadings", readings: Command.maxReadings + 1 })
    )
  })

  it("options read both ways too many times are opaque", () => {
    expect(readings("sudo", ...Array.from({ length: 20 }, () => "-Q"), "rm")).toContain("OPAQUE(sudo's options)")
  })

  it("getters that throw, proxies, revoked proxies", () => {
    const getter = {
      program: "rm",
      get arguments(): ReadonlyArray<string> {
        throw new Error("no")
      }
    }
    expect(Command.readingsOf(getter, undefined)).toEqual(
      Result.fail({ _tag: "Unreadable", field: "arguments", message: "no" })
    )
    const trap = new Proxy(["-rf", "x"], {
      get: (target, key) => {
        if (key === "1") throw new Error("trapped")
        return Reflect.get(target, key)
      }
    })
    expect(Command.readingsOf({ program: "rm", arguments: trap }, undefined)).toEqual(
      Result.fail({ _tag: "Unreadable", field: "arguments", message: "trapped" })
    )
    const { proxy, revoke } = Proxy.revocable({ program: "rm" }, {})
    revoke()
    expect(Result.isFailure(Command.readingsOf(proxy, undefined))).toBe(true)
    const longArray = new Proxy([], { get: (t, k) => (k === "length" ? 1e9 : Reflect.get(t, k)) })
    expect(Command.readingsOf({ program: "rm", arguments: longArray }, undefined)).toEqual(
      Result.fail({ _tag: "CommandTooLarge", limit: "words", size: 1e9 + 1, max: Command.maxWords })
    )
    const hostileMeanings = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("keys")
        }
      }
    )
    expect(Command.readingsOf({ program: "ls" }, hostileMeanings)).toEqual(
      Result.succeed([{ _tag: "Argv", words: ["ls"], globs: [], open: false }])
    )
  })
})

describe("quote and display", () => {
  it.each([
    ["ls", "ls"],
    ["", "''"],
    ["my file", "'my file'"],
    ["it's", "'it'\\''s'"],
    ["$HOME", "'$HOME'"],
    ["a;b", "'a;b'"],
    ["--out=/x/y.txt", "--out=/x/y.txt"],
    ["*", "'*'"]
  ])("%j", (word, quoted) => {
    expect(Command.quote(word)).toBe(quoted)
  })

  it("a command as one line", () => {
    expect(
      Command.display(
        { programa: "git", argumentos: ["commit", "-m", "it's done"] },
        { programa: "program", argumentos: "arguments" }
      )
    ).toBe("git commit -m 'it'\\''s done'")
    expect(Command.display({ line: "ls; rm x" }, { line: "shell" })).toBe("ls; rm x")
    expect(Command.display({ path: "x" }, undefined)).toBeUndefined()
  })
})

describe("Glob.matchesWord and Glob.literal", () => {
  it("`/` is an ordinary character in a word", () => {
    const glob = Result.getOrThrow(Glob.compile("a/**/b"))
    expect(Glob.matchesWord(glob, "a/x/y/b")).toBe(true)
    expect(Glob.matchesWord(Result.getOrThrow(Glob.compile("*")), "../x")).toBe(true)
    expect(Glob.matches(Result.getOrThrow(Glob.compile("*")), "..")).toBe(false)
    expect(Glob.matchesWord(Result.getOrThrow(Glob.compile("*")), "..")).toBe(true)
  })

  it("a literal glob matches its text only, as a path and as a word", () => {
    for (const text of ["", "a*b", "a/b", "[x]", "!x"]) {
      expect(Glob.matches(Glob.literal(text), text)).toBe(true)
      expect(Glob.matchesWord(Glob.literal(text), text)).toBe(true)
      expect(Glob.matchesWord(Glob.literal(text), `${text}x`)).toBe(false)
      expect(Result.getOrThrow(Glob.compile(Glob.literal(text).source || "x")).source).toBeDefined()
    }
  })
})
