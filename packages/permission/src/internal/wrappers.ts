/**
 * Programs that run another command (`env`, `nice`, `timeout`, `sudo`, `xargs`, …) and shells
 * that run a line (`sh -c`): what each one runs, read from its words. Options are read the way
 * getopt reads them (bundles, attached values, `--`, long options and their unambiguous
 * prefixes); an option this table does not know is read both ways (a flag, and a flag taking
 * the next word), so that every command it could run is decided.
 */
import * as ShellWords from "./shellWords.ts"

/** What a wrapper runs: a command's words, a shell line, or something the gate cannot read. */
export type Next =
  | {
      readonly _tag: "Argv"
      readonly words: ReadonlyArray<string>
      readonly globs: ReadonlyArray<number>
      readonly open: boolean
    }
  | { readonly _tag: "Line"; readonly line: string }
  | { readonly _tag: "Opaque"; readonly construct: string }

type Arity = 0 | 1 | "optional"

interface Option {
  readonly arity: Arity
  /** The name it is recorded under (its short letter, or its long name). */
  readonly key: string
}

interface OptionTable {
  readonly short: ReadonlyMap<string, Option>
  readonly long: ReadonlyMap<string, Option>
  /** `+o`, `+x`: shells read `+` options too. */
  readonly plus: boolean
  /** A word `-` alone: a flag (`env -` is `env -i`), the end of options (`sh -`), or a word. */
  readonly dash: "flag" | "end" | "word"
}

/**
 * Options in getopt's spelling: `"in:u:"` (a letter, `:` when it takes a value, `::` when the
 * value is optional and attached), long names with their arity, and aliases (`--unset` is `-u`).
 */
const table = (
  short: string,
  long: Readonly<Record<string, Arity | readonly [Arity, string]>> = {},
  more: Partial<Pick<OptionTable, "plus" | "dash">> = {}
): OptionTable => {
  const shorts = new Map<string, Option>()
  for (let i = 0; i < short.length; i++) {
    const letter = short[i] ?? ""
    let arity: Arity = 0
    if (short[i + 1] === ":") {
      arity = short[i + 2] === ":" ? "optional" : 1
      i += arity === "optional" ? 2 : 1
    }
    shorts.set(letter, { arity, key: letter })
  }
  const longs = new Map<string, Option>()
  for (const [name, spec] of Object.entries(long)) {
    const [arity, key] = typeof spec === "object" ? spec : [spec, name]
    longs.set(name, { arity, key })
  }
  return { short: shorts, long: longs, plus: more.plus ?? false, dash: more.dash ?? "word" }
}

/** Where a reading of the options ends, and the options it read, with their values. */
interface Scanned {
  readonly at: number
  readonly seen: ReadonlyArray<readonly [key: string, value: string | undefined]>
}

/** The most ways one wrapper's options are read before the command is called opaque. */
const maxScans = 16

/** A long option by its name or an unambiguous prefix of it, as getopt_long takes it. */
const longOption = (options: OptionTable, name: string): Option | undefined => {
  const exact = options.long.get(name)
  if (exact !== undefined || name === "") return exact
  let found: Option | undefined
  for (const [full, option] of options.long) {
    if (!full.startsWith(name)) continue
    if (found !== undefined && found.key !== option.key) return undefined
    found = option
  }
  return found
}

/**
 * Every way `words` from `from` can be read as options, up to the first word that is not one:
 * `undefined` when there are more than {@link maxScans}.
 */
const scan = (words: ReadonlyArray<string>, from: number, options: OptionTable): ReadonlyArray<Scanned> | undefined => {
  const out: Array<Scanned> = []
  // Each option read both ways adds a way; past the bound the options are not read at all.
  let ways = 1
  const branch = (): boolean => ++ways <= maxScans
  const at = (i: number, seen: Scanned["seen"]): boolean => {
    const word = words[i]
    if (word === undefined) {
      out.push({ at: i, seen })
      return true
    }
    if (word === "--") {
      out.push({ at: i + 1, seen })
      return true
    }
    if (word === "-") {
      if (options.dash === "flag") return at(i + 1, [...seen, ["-", undefined]])
      out.push({ at: options.dash === "end" ? i + 1 : i, seen })
      return true
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=")
      const name = word.slice(2, eq === -1 ? undefined : eq)
      const value = eq === -1 ? undefined : word.slice(eq + 1)
      const option = longOption(options, name)
      if (option === undefined) {
        if (value !== undefined) return at(i + 1, [...seen, [name, value]])
        return at(i + 1, [...seen, [name, undefined]]) && branch() && at(i + 2, [...seen, [name, words[i + 1]]])
      }
      if (option.arity === 1 && value === undefined) return at(i + 2, [...seen, [option.key, words[i + 1]]])
      return at(i + 1, [...seen, [option.key, value]])
    }
    if (word.startsWith("-") || (options.plus && word.startsWith("+") && word.length > 1)) {
      return bundle(i, 1, seen)
    }
    out.push({ at: i, seen })
    return true
  }
  /** The letters of the bundle `words[i]` from its `j`th character. */
  const bundle = (i: number, j: number, seen: Scanned["seen"]): boolean => {
    const word = words[i] ?? ""
    if (j >= word.length) return at(i + 1, seen)
    const letter = word[j] ?? ""
    const rest = word.slice(j + 1)
    const option = options.short.get(letter)
    const valued = (key: string): boolean =>
      rest === "" ? at(i + 2, [...seen, [key, words[i + 1]]]) : at(i + 1, [...seen, [key, rest]])
    if (option === undefined) return bundle(i, j + 1, [...seen, [letter, undefined]]) && branch() && valued(letter)
    if (option.arity === 0) return bundle(i, j + 1, [...seen, [option.key, undefined]])
    if (option.arity === "optional") return at(i + 1, [...seen, [option.key, rest === "" ? undefined : rest]])
    return valued(option.key)
  }
  return at(from, []) ? out : undefined
}

interface Wrapper {
  readonly options: OptionTable
  /** Words between the options and the command (`timeout`'s duration, `chroot`'s folder). */
  readonly operands?: number
  /** `NAME=VALUE` words before the command are assignments (`env`). */
  readonly assignments?: boolean
  /** Without a command it runs a shell that reads its input (`chroot`, `unshare`): opaque. */
  readonly shell?: boolean
  /** Options that make it run a shell when no command follows (`sudo -s`, `doas -s`). */
  readonly shellKeys?: ReadonlyArray<string>
  /** Options whose value is a shell line it runs (`script -c`, `flock -c`). */
  readonly lineKeys?: ReadonlyArray<string>
  /** Options whose value is split into words and read again as its own (`env -S`). */
  readonly splitKeys?: ReadonlyArray<string>
  /** It adds words of its input to the command (`xargs`). */
  readonly open?: boolean
  /** Options that name a string replaced by its input in the command (`xargs -I {}`), and the default. */
  readonly replace?: { readonly keys: ReadonlyArray<string>; readonly default: string }
  /** The command's words are also joined into a shell line (`watch` runs `sh -c "…"`). */
  readonly joined?: boolean
  /** After its operand, `-c LINE` is a shell line (`flock FILE -c LINE`). */
  readonly lineAfterOperand?: boolean
}

const none = table("")

const wrappers: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  [
    "env",
    {
      options: table(
        "0iu:C:S:va:",
        {
          "ignore-environment": [0, "i"],
          null: [0, "0"],
          unset: [1, "u"],
          chdir: [1, "C"],
          "split-string": [1, "S"],
          "block-signal": "optional",
          "default-signal": "optional",
          "ignore-signal": "optional",
          "list-signal-handling": 0,
          debug: [0, "v"],
          argv0: [1, "a"]
        },
        { dash: "flag" }
      ),
      assignments: true,
      splitKeys: ["S"]
    }
  ],
  ["command", { options: table("pvV") }],
  ["exec", { options: table("cla:") }],
  ["builtin", { options: none }],
  ["nohup", { options: none }],
  ["noglob", { options: none }],
  ["nocorrect", { options: none }],
  ["nice", { options: table("n:0123456789", { adjustment: [1, "n"] }) }],
  [
    "time",
    {
      options: table("pavqf:o:", {
        format: [1, "f"],
        output: [1, "o"],
        append: [0, "a"],
        portability: [0, "p"],
        verbose: [0, "v"],
        quiet: [0, "q"]
      })
    }
  ],
  [
    "timeout",
    {
      options: table("k:s:vfp", {
        "kill-after": [1, "k"],
        signal: [1, "s"],
        verbose: [0, "v"],
        foreground: [0, "f"],
        "preserve-status": [0, "p"]
      }),
      operands: 1
    }
  ],
  ["stdbuf", { options: table("i:o:e:", { input: [1, "i"], output: [1, "o"], error: [1, "e"] }) }],
  ["setsid", { options: table("cfw", { ctty: [0, "c"], fork: [0, "f"], wait: [0, "w"] }) }],
  [
    "ionice",
    {
      options: table("c:n:pPtu", {
        class: [1, "c"],
        classdata: [1, "n"],
        pid: [0, "p"],
        pgid: [0, "P"],
        ignore: [0, "t"],
        uid: [0, "u"]
      })
    }
  ],
  [
    "chrt",
    {
      options: table("abdefimoprRvT:P:D:", {
        "all-tasks": [0, "a"],
        batch: [0, "b"],
        deadline: [0, "d"],
        ext: [0, "e"],
        fifo: [0, "f"],
        idle: [0, "i"],
        max: [0, "m"],
        other: [0, "o"],
        pid: [0, "p"],
        rr: [0, "r"],
        "reset-on-fork": [0, "R"],
        verbose: [0, "v"],
        "sched-runtime": [1, "T"],
        "sched-period": [1, "P"],
        "sched-deadline": [1, "D"]
      }),
      operands: 1
    }
  ],
  ["taskset", { options: table("acp", { "all-tasks": [0, "a"], "cpu-list": [0, "c"], pid: [0, "p"] }), operands: 1 }],
  [
    "xargs",
    {
      options: table("0oprtxa:d:E:I:L:n:P:s:e::i::l::", {
        null: [0, "0"],
        "open-tty": [0, "o"],
        interactive: [0, "p"],
        "no-run-if-empty": [0, "r"],
        verbose: [0, "t"],
        exit: [0, "x"],
        "show-limits": 0,
        "arg-file": [1, "a"],
        delimiter: [1, "d"],
        "max-args": [1, "n"],
        "max-procs": [1, "P"],
        "max-chars": [1, "s"],
        "process-slot-var": 1,
        eof: ["optional", "e"],
        replace: ["optional", "i"],
        "max-lines": ["optional", "l"]
      }),
      open: true,
      replace: { keys: ["I", "i"], default: "{}" }
    }
  ],
  [
    "sudo",
    {
      options: table("ABbEeHiKklNnPSsVvC:D:g:p:R:r:T:t:U:u:", {
        askpass: [0, "A"],
        background: [0, "b"],
        bell: [0, "B"],
        "preserve-env": "optional",
        edit: [0, "e"],
        "set-home": [0, "H"],
        login: [0, "i"],
        "remove-timestamp": [0, "K"],
        "reset-timestamp": [0, "k"],
        list: [0, "l"],
        "no-update": [0, "N"],
        "non-interactive": [0, "n"],
        "preserve-groups": [0, "P"],
        stdin: [0, "S"],
        shell: [0, "s"],
        version: [0, "V"],
        validate: [0, "v"],
        "close-from": [1, "C"],
        chdir: [1, "D"],
        group: [1, "g"],
        host: 1,
        prompt: [1, "p"],
        chroot: [1, "R"],
        role: [1, "r"],
        "command-timeout": [1, "T"],
        type: [1, "t"],
        "other-user": [1, "U"],
        user: [1, "u"]
      }),
      shellKeys: ["s", "i"]
    }
  ],
  ["doas", { options: table("nsLu:C:"), shellKeys: ["s"] }],
  ["busybox", { options: none }],
  [
    "flock",
    {
      options: table("sxeunoFw:E:c:", {
        shared: [0, "s"],
        exclusive: [0, "x"],
        unlock: [0, "u"],
        nonblock: [0, "n"],
        nb: [0, "n"],
        close: [0, "o"],
        "no-fork": [0, "F"],
        verbose: 0,
        wait: [1, "w"],
        timeout: [1, "w"],
        "conflict-exit-code": [1, "E"],
        command: [1, "c"]
      }),
      operands: 1,
      lineKeys: ["c"],
      lineAfterOperand: true
    }
  ],
  [
    "unshare",
    {
      options: table("m::u::i::n::p::U::C::T::frcS:G:R:w:l:", {
        mount: ["optional", "m"],
        uts: ["optional", "u"],
        ipc: ["optional", "i"],
        net: ["optional", "n"],
        pid: ["optional", "p"],
        user: ["optional", "U"],
        cgroup: ["optional", "C"],
        time: ["optional", "T"],
        fork: [0, "f"],
        "map-root-user": [0, "r"],
        "map-current-user": [0, "c"],
        "map-auto": 0,
        "keep-caps": 0,
        "mount-proc": "optional",
        "mount-binfmt": "optional",
        "kill-child": "optional",
        propagation: 1,
        setgroups: 1,
        "map-user": 1,
        "map-group": 1,
        "map-users": 1,
        "map-groups": 1,
        monotonic: 1,
        boottime: 1,
        setuid: [1, "S"],
        setgid: [1, "G"],
        root: [1, "R"],
        wd: [1, "w"],
        "load-interp": [1, "l"]
      }),
      shell: true
    }
  ],
  ["chroot", { options: table("", { userspec: 1, groups: 1, "skip-chdir": 0 }), operands: 1, shell: true }],
  [
    "prlimit",
    {
      options: table("c::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y::p:o:", {
        pid: [1, "p"],
        output: [1, "o"],
        noheadings: 0,
        raw: 0,
        verbose: 0,
        core: "optional",
        data: "optional",
        nice: "optional",
        fsize: "optional",
        sigpending: "optional",
        memlock: "optional",
        rss: "optional",
        nofile: "optional",
        msgqueue: "optional",
        rtprio: "optional",
        stack: "optional",
        cpu: "optional",
        nproc: "optional",
        as: "optional",
        locks: "optional",
        rttime: "optional"
      })
    }
  ],
  [
    "script",
    {
      options: table("aefqkwc:E:o:t::T:B:I:O:m:", {
        append: [0, "a"],
        return: [0, "e"],
        flush: [0, "f"],
        quiet: [0, "q"],
        "log-in": 0,
        "log-out": 0,
        "log-io": 0,
        "log-timing": 0,
        "logging-format": [1, "m"],
        command: [1, "c"],
        echo: [1, "E"],
        "output-limit": [1, "o"],
        timing: ["optional", "t"]
      }),
      lineKeys: ["c"],
      shell: true
    }
  ],
  [
    "watch",
    {
      options: table("n:d::tbegcCpxwrfq:s:", {
        interval: [1, "n"],
        differences: ["optional", "d"],
        "no-title": [0, "t"],
        beep: [0, "b"],
        errexit: [0, "e"],
        chgexit: [0, "g"],
        color: [0, "c"],
        "no-color": [0, "C"],
        precise: [0, "p"],
        exec: [0, "x"],
        "no-wrap": [0, "w"],
        "no-rerun": [0, "r"],
        follow: [0, "f"],
        equexit: [1, "q"],
        shotsdir: [1, "s"]
      }),
      joined: true
    }
  ]
])

/** Shells that run `-c LINE` as a POSIX shell line. */
const shells: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "ksh93",
  "mksh",
  "ash",
  "yash",
  "posh",
  "rbash",
  "lksh",
  "pdksh",
  "oksh"
])

const shellOptions = table(
  "abcefhikmnprstuvxBCEHPTDlO:o:",
  {
    login: [0, "l"],
    noprofile: 0,
    norc: 0,
    posix: 0,
    restricted: [0, "r"],
    verbose: [0, "v"],
    version: 0,
    help: 0,
    debugger: 0,
    "dump-strings": 0,
    "dump-po-strings": 0,
    noediting: 0,
    "pretty-print": 0,
    rcfile: 1,
    "init-file": 1
  },
  { plus: true, dash: "end" }
)

/**
 * Programs whose words are code the gate cannot read: they are decided as any command
 * (`eval`, `source`, `.`, `alias`, `trap`, `let`, `fc`, and shells whose language is not POSIX sh).
 */
const opaquePrograms: ReadonlySet<string> = new Set([
  "eval",
  "source",
  ".",
  "alias",
  "trap",
  "let",
  "fc",
  "fish",
  "csh",
  "tcsh",
  "rc",
  "es",
  "nu",
  "elvish",
  "xonsh",
  "pwsh",
  "powershell"
])

/** The last segment of a program's path (`/usr/bin/rm`, `./rm`, `bin//rm` are `rm`), `=` of zsh's `=rm` dropped. */
export const baseName = (program: string): string => {
  const bare = program.startsWith("=") ? program.slice(1) : program
  const segments = bare.split("/").filter((s) => s !== "")
  return segments.at(-1) ?? bare
}

/** The command that follows position `at`, with the globs and openness of the words it came from. */
const argvFrom = (
  words: ReadonlyArray<string>,
  globs: ReadonlyArray<number>,
  at: number,
  open: boolean
): Next & { readonly _tag: "Argv" } => ({
  _tag: "Argv",
  words: words.slice(at),
  globs: globs.filter((g) => g >= at && g < words.length).map((g) => g - at),
  open
})

/** What a shell's words run: its `-c` line, or (a script, its input) something opaque. */
const shellNext = (name: string, words: ReadonlyArray<string>): ReadonlyArray<Next> => {
  const scans = scan(words, 1, shellOptions)
  if (scans === undefined) return [{ _tag: "Opaque", construct: `${name}'s options` }]
  const out: Array<Next> = []
  for (const { at, seen } of scans) {
    const keys = seen.map(([key]) => key)
    if (keys.includes("c")) {
      const line = words[at]
      if (line !== undefined) out.push({ _tag: "Line", line })
    } else if (keys.includes("version") || keys.includes("help")) {
      // Nothing runs.
    } else {
      const script = words[at]
      out.push({
        _tag: "Opaque",
        construct: script === undefined ? `${name} reading commands from its input` : `${name} running ${script}`
      })
    }
  }
  return out
}

/** `su` and `runuser`: a `-c LINE` anywhere (their options may follow the user), else a shell. */
const suNext = (name: string, words: ReadonlyArray<string>): ReadonlyArray<Next> => {
  const out: Array<Next> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i] ?? ""
    if (word === "--") break
    const line =
      word === "-c" || word === "--command" || word === "--session-command"
        ? words[i + 1]
        : word.startsWith("--command=")
          ? word.slice("--command=".length)
          : word.startsWith("--session-command=")
            ? word.slice("--session-command=".length)
            : /^-[^-]*c./.test(word)
              ? word.slice(word.indexOf("c") + 1)
              : /^-[^-]*c$/.test(word)
                ? words[i + 1]
                : undefined
    if (line !== undefined) out.push({ _tag: "Line", line })
  }
  return out.length > 0 ? out : [{ _tag: "Opaque", construct: `${name} without -c runs a shell` }]
}

/** `find … -exec CMD … ;` (and `-execdir`, `-ok`, `-okdir`): each command it runs. */
const findNext = (words: ReadonlyArray<string>, globs: ReadonlyArray<number>): ReadonlyArray<Next> => {
  const out: Array<Next> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i]
    if (word !== "-exec" && word !== "-execdir" && word !== "-ok" && word !== "-okdir") continue
    let end = i + 1
    while (end < words.length && words[end] !== ";" && !(words[end] === "+" && words[end - 1] === "{}")) end++
    const argv = argvFrom(words.slice(0, end), globs, i + 1, false)
    const program = argv.words[0]
    if (program !== undefined) {
      out.push(program.includes("{}") ? { _tag: "Opaque", construct: `find ${word} ${program}` } : argv)
    }
    i = end
  }
  return out
}

/**
 * What `words` (a command: its program first) runs besides itself: the command a wrapper wraps,
 * the line a shell runs, or an opaque construct. Empty for a command that runs nothing else.
 */
export const next = (
  words: ReadonlyArray<string>,
  globs: ReadonlyArray<number>,
  open: boolean
): ReadonlyArray<Next> => {
  const found = nextOf(words, globs, open)
  if (globs.length === 0) return found
  // A line among words that the shell expands or that come from input may be any line.
  return found.map((n) =>
    n._tag === "Line" ? { _tag: "Opaque", construct: `${baseName(words[0] ?? "")} ${n.line}` } : n
  )
}

const nextOf = (words: ReadonlyArray<string>, globs: ReadonlyArray<number>, open: boolean): ReadonlyArray<Next> => {
  const program = words[0]
  if (program === undefined) return []
  const name = baseName(program)
  if (opaquePrograms.has(name)) return [{ _tag: "Opaque", construct: name }]
  if (shells.has(name)) return shellNext(name, words)
  if (name === "su" || name === "runuser") return suNext(name, words)
  if (name === "find") return findNext(words, globs)
  const wrapper = wrappers.get(name)
  if (wrapper === undefined) return []
  const scans = scan(words, 1, wrapper.options)
  if (scans === undefined) return [{ _tag: "Opaque", construct: `${name}'s options` }]
  const out: Array<Next> = []
  for (const { at, seen } of scans) {
    const lines = seen.filter(([key]) => wrapper.lineKeys?.includes(key))
    for (const [, line] of lines)
      out.push(line === undefined ? { _tag: "Opaque", construct: `${name} -c` } : { _tag: "Line", line })
    if (lines.length > 0) continue
    const split = seen.find(([key]) => wrapper.splitKeys?.includes(key))
    if (split !== undefined) {
      const words2 = split[1] === undefined ? { opaque: `${name} -S` } : ShellWords.splitWords(split[1])
      if ("opaque" in words2) out.push({ _tag: "Opaque", construct: words2.opaque })
      else out.push({ _tag: "Argv", words: [program, ...words2.words, ...words.slice(at)], globs: [], open })
      continue
    }
    let i = at
    if (wrapper.assignments === true) while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] ?? "")) i++
    i += wrapper.operands ?? 0
    if (wrapper.lineAfterOperand === true && (words[i] === "-c" || words[i] === "--command")) {
      const line = words[i + 1]
      out.push(line === undefined ? { _tag: "Opaque", construct: `${name} -c` } : { _tag: "Line", line })
      continue
    }
    if (i >= words.length) {
      if (wrapper.shell === true || seen.some(([key]) => wrapper.shellKeys?.includes(key))) {
        out.push({ _tag: "Opaque", construct: `${name} without a command runs a shell` })
      }
      continue
    }
    const argv = argvFrom(words, globs, i, open || wrapper.open === true)
    const replaced = replacement(wrapper, seen)
    if (replaced !== undefined) {
      if ((argv.words[0] ?? "").includes(replaced)) {
        out.push({ _tag: "Opaque", construct: `${name} running its input (${replaced})` })
        continue
      }
      // The words that hold the replacement are the input's: any words at all.
      const globs2 = argv.words.flatMap((w, k) =>
        argv.globs.includes(k) || (k > 0 && w.includes(replaced)) ? [k] : []
      )
      out.push({ ...argv, globs: globs2 })
    } else out.push(argv)
    if (wrapper.joined === true) out.push({ _tag: "Line", line: argv.words.join(" ") })
  }
  return out
}

/** The text `xargs -I R` replaces in its command, when an option names one. */
const replacement = (wrapper: Wrapper, seen: Scanned["seen"]): string | undefined => {
  if (wrapper.replace === undefined) return undefined
  const found = seen.find(([key]) => wrapper.replace?.keys.includes(key))
  if (found === undefined) return undefined
  return found[1] === undefined || found[1] === "" ? wrapper.replace.default : found[1]
}
