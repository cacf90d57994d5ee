/**
 * The hand-written shell word splitter: what it reads as sh reads it (quotes, escapes,
 * continuations, comments, operators, redirections, assignments), and every construct it refuses
 * as opaque instead of guessing.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ShellWords from "../src/internal/shellWords.ts"

const read = (line: string) => ShellWords.parseLine(line, 1024)
const words = (line: string): ReadonlyArray<ReadonlyArray<string>> | string => {
  const parsed = read(line)
  if (parsed._tag === "Commands") return parsed.commands.map((c) => c.words)
  return parsed._tag === "Opaque" ? `opaque: ${parsed.construct}` : "too large"
}

describe("quotes and escapes are removed as sh removes them", () => {
  it.each([
    ["rm -rf x", [["rm", "-rf", "x"]]],
    ["  rm\t-rf   x  ", [["rm", "-rf", "x"]]],
    ["'r'm -rf x", [["rm", "-rf", "x"]]],
    ['"rm" -rf x', [["rm", "-rf", "x"]]],
    ["r\\m -rf x", [["rm", "-rf", "x"]]],
    ["\\rm -rf x", [["rm", "-rf", "x"]]],
    ["r''m -rf x", [["rm", "-rf", "x"]]],
    ['r""m -rf x', [["rm", "-rf", "x"]]],
    ["rm -'r'f x", [["rm", "-rf", "x"]]],
    ['echo "a b"  c', [["echo", "a b", "c"]]],
    ["echo 'a \"b\" $X `y`'", [["echo", 'a "b" $X `y`']]],
    ['echo "a \\"b\\" \\$X \\\\ \\n"', [["echo", 'a "b" $X \\ \\n']]],
    ["echo a\\ b", [["echo", "a b"]]],
    ["echo ''", [["echo", ""]]],
    ["echo a\\\nb", [["echo", "ab"]]],
    ['echo "a\\\nb"', [["echo", "ab"]]],
    ["rm \\\n -rf x", [["rm", "-rf", "x"]]],
    ['grep "foo$" file', [["grep", "foo$", "file"]]],
    ["echo $ a", [["echo", "$", "a"]]],
    ["echo ~/x a#b", [["echo", "~/x", "a#b"]]],
    ["find . -exec rm {} \\;", [["find", ".", "-exec", "rm", "{}", ";"]]],
    ["git log @{u}", [["git", "log", "@{u}"]]]
  ])("%j", (line, expected) => {
    expect(words(line)).toEqual(expected)
  })
})

describe("operators separate simple commands; redirections and assignments are dropped", () => {
  it.each([
    ["ls; rm -rf x", [["ls"], ["rm", "-rf", "x"]]],
    ["ls && rm -rf x || echo no", [["ls"], ["rm", "-rf", "x"], ["echo", "no"]]],
    ["ls | xargs rm", [["ls"], ["xargs", "rm"]]],
    ["ls |& cat", [["ls"], ["cat"]]],
    [
      "sleep 1 & rm -rf x",
      [
        ["sleep", "1"],
        ["rm", "-rf", "x"]
      ]
    ],
    ["ls\nrm -rf x\n", [["ls"], ["rm", "-rf", "x"]]],
    ["ls &&\n rm x", [["ls"], ["rm", "x"]]],
    ["ls # ; rm -rf x\nrm y", [["ls"], ["rm", "y"]]],
    ["ls>out 2>&1 <in", [["ls"]]],
    ["ls > out 2> err >> log >| f <> g", [["ls"]]],
    ["rm -rf x 2>/dev/null", [["rm", "-rf", "x"]]],
    ["FOO=1 BAR='x y' rm -rf x", [["rm", "-rf", "x"]]],
    ["PATH+=:/x rm x", [["rm", "x"]]],
    ["'FOO'=1 rm", [["FOO=1", "rm"]]],
    ["FOO=1", []],
    ["! rm -rf x", [["rm", "-rf", "x"]]],
    ["time rm -rf x", [["time", "rm", "-rf", "x"]]],
    [
      "[ -f x ] && rm x",
      [
        ["[", "-f", "x", "]"],
        ["rm", "x"]
      ]
    ],
    // `&>` is a redirection to bash and `&` then `>` to POSIX sh: both readings are kept.
    ["ls &> f rm -rf x", [["ls"], ["rm", "-rf", "x"], ["ls", "rm", "-rf", "x"]]]
  ])("%j", (line, expected) => {
    expect(words(line)).toEqual(expected)
  })

  it("an unquoted glob word is marked (it may expand to -rf); a quoted one is not", () => {
    const parsed = read("rm *.log x* '*' \\* a[b]c [ d")
    expect(parsed).toEqual({
      _tag: "Commands",
      commands: [{ words: ["rm", "*.log", "x*", "*", "*", "a[b]c", "[", "d"], globs: [1, 2, 5] }]
    })
  })
})

describe("what it cannot read is opaque, never guessed", () => {
  it.each([
    ["parameter expansion", 'sh -c "$CMD"'],
    ["parameter expansion", "$CMD -rf x"],
    ["parameter expansion", "rm -rf $X"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    ["braced expansion", "rm -rf ${X}"],
    ["special parameter", 'rm "$@"'],
    ["positional parameter", "rm $1"],
    ["command substitution", "rm -rf $(cat list)"],
    ["command substitution in double quotes", 'rm -rf "$(cat list)"'],
    ["backticks", "rm -rf `cat list`"],
    ["backticks in double quotes", 'echo "`id`"'],
    ["arithmetic", "echo $((1 + 2))"],
    ["ANSI-C quoting", "$'\\x72m' -rf x"],
    ["locale quoting", '$"rm" -rf x'],
    ["process substitution", "diff <(ls a) b"],
    ["process substitution", "tee >(rm -rf x)"],
    ["subshell", "(rm -rf x)"],
    ["subshell after an operator", "ls && (rm -rf x)"],
    ["group", "{ rm -rf x; }"],
    ["here-document", "cat <<EOF\nrm\nEOF"],
    ["here-document", "cat <<-EOF"],
    ["here-string", "bash <<< 'rm -rf x'"],
    ["function definition", "f() { rm -rf x; }; f"],
    ["function keyword", "function f { rm -rf x; }"],
    ["if", "if true; then rm -rf x; fi"],
    ["for", "for f in a; do rm $f; done"],
    ["while", "while true; do rm x; done"],
    ["case", "case x in x) rm;; esac"],
    ["[[", "[[ -f x ]] && rm x"],
    ["arithmetic command", "((x++))"],
    ["glob as the program", "/bin/r? -rf x"],
    ["glob as the program", "*rm -rf x"],
    ["glob as the program after assignments", "X=1 r[m] -rf x"],
    ["brace expansion", "rm {-rf,x}"],
    ["brace expansion", "r{m,} -rf x"],
    ["brace sequence", "rm x{1..3}"],
    ["unclosed single quote", "rm 'x"],
    ["unclosed double quote", 'rm "x'],
    ["escape at the end", "rm x\\"],
    ["operator with no command", "; rm x"],
    ["operator with no command", "ls && && rm x"],
    ["redirection with no target", "ls >"],
    ["glob as a redirection target", "ls > *"],
    ["extglob", "rm !(keep)"],
    ["zsh glob qualifier", "rm -rf x(/)"]
  ])("%s: %j", (_, line) => {
    expect(read(line)._tag).toBe("Opaque")
  })

  it("says what it could not read", () => {
    expect(read('sh -c "$CMD"')).toEqual({ _tag: "Opaque", construct: "$CMD" })
    expect(read("rm $(cat list-of-files-that-is-quite-long)")).toEqual({
      _tag: "Opaque",
      construct: "$(cat list-of-files-that…"
    })
    expect(read("rm 'x")).toEqual({ _tag: "Opaque", construct: "an unclosed ' ('x)" })
    expect(read("if true; then rm; fi")).toEqual({ _tag: "Opaque", construct: "if" })
  })

  it("a quoted reserved word is a program like any", () => {
    expect(words("'if' x")).toEqual([["if", "x"]])
  })
})

describe("bounds", () => {
  it("time linear in the line's length, whatever it holds", () => {
    const started = performance.now()
    for (const line of [
      `${"a".repeat(30_000)}-${"=".repeat(30_000)}`,
      `x ${"'a'".repeat(20_000)}`,
      `x "${"\\a".repeat(20_000)}"`,
      `x ${"[".repeat(30_000)}`,
      `x ${"{,".repeat(30_000)}`,
      `x ${"a=".repeat(30_000)}`
    ]) {
      expect(read(line)._tag).not.toBe("TooLarge")
    }
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it("too many words", () => {
    expect(ShellWords.parseLine("a ".repeat(11), 10)).toEqual({ _tag: "TooLarge", limit: "words", size: 11 })
    expect(ShellWords.parseLine("a ".repeat(10), 10)._tag).toBe("Commands")
  })
})

describe("patterns and env -S strings", () => {
  const pattern = (text: string) => {
    const split = ShellWords.splitPattern(text)
    return "problem" in split
      ? split.problem
      : split.words.map((w) => w.map(([c, q]) => (q ? c.toUpperCase() : c)).join(""))
  }

  it("quotes mark their characters as quoted", () => {
    // Quoted characters shown upper-cased here.
    expect(pattern("git commit -m 'a *' \"b?\" c\\*")).toEqual(["git", "commit", "-m", "A *", "B?", "c*"])
    expect(pattern("grep ''")).toEqual(["grep", ""])
  })

  it("a pattern is one command written out", () => {
    expect(pattern("git status; rm")).toMatch(/';' is not allowed unquoted/)
    expect(pattern("a | b")).toMatch(/'\|' is not allowed/)
    expect(pattern("echo $HOME")).toMatch(/'\$' is not allowed/)
    expect(pattern('echo "$HOME"')).toMatch(/even between double quotes/)
    expect(pattern("ls > x")).toMatch(/'>' is not allowed/)
    expect(pattern("a # b")).toMatch(/'#' is not allowed/)
    expect(pattern("rm 'x")).toBe("a ' is not closed")
    expect(pattern('rm "x')).toBe('a " is not closed')
    expect(pattern("rm x\\")).toMatch(/escapes nothing/)
    expect(pattern("echo '$HOME;'")).toEqual(["echo", "$HOME;"])
  })

  it("env -S splits on blanks and quotes; operators are plain characters there", () => {
    expect(ShellWords.splitWords("rm -rf 'a b' x;y")).toEqual({ words: ["rm", "-rf", "a b", "x;y"] })
    expect(ShellWords.splitWords("rm $X")).toEqual({ opaque: "$X" })
  })
})
