/**
 * The sandbox's configuration as pure functions: what bwrap is told, in what order, and that
 * nothing of a command can come before the `--` that ends bwrap's options.
 */
import { describe, expect, it } from "@effect/vitest"
import { Sandbox } from "../src/index.ts"
import * as Arguments from "../src/internal/arguments.ts"
import { Capture } from "../src/internal/capture.ts"

const merged: Sandbox.Host = {
  uid0: true,
  system: [
    { _tag: "Bind", path: "/usr" },
    { _tag: "Bind", path: "/etc" },
    { _tag: "Symlink", path: "/bin", target: "usr/bin" },
    { _tag: "Symlink", path: "/lib", target: "usr/lib" },
    { _tag: "Symlink", path: "/lib64", target: "usr/lib64" }
  ],
  masked: [
    { path: "/etc/shadow", kind: "file" },
    { path: "/etc/sudoers.d", kind: "directory" }
  ]
}

const policy: Sandbox.Policy = {
  ...Sandbox.defaults,
  root: "/work/project",
  maxFileBytes: 1000,
  maxMemoryBytes: 1 << 30
}

describe("bwrapArguments", () => {
  it("gives the whole configuration, then -- and the command", () => {
    expect(Sandbox.bwrapArguments(policy, merged, { argv: ["ls", "-la"] })).toEqual([
      "--ro-bind",
      "/usr",
      "/usr",
      "--ro-bind",
      "/etc",
      "/etc",
      "--symlink",
      "usr/bin",
      "/bin",
      "--symlink",
      "usr/lib",
      "/lib",
      "--symlink",
      "usr/lib64",
      "/lib64",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "--size",
      "1000",
      "--tmpfs",
      "/dev/shm",
      "--remount-ro",
      "/dev",
      "--size",
      "1000",
      "--tmpfs",
      "/tmp",
      "--ro-bind",
      "/dev/null",
      "/etc/shadow",
      "--tmpfs",
      "/etc/sudoers.d",
      "--remount-ro",
      "/etc/sudoers.d",
      "--bind",
      "/work/project",
      "/work/project",
      "--remount-ro",
      "/",
      "--chdir",
      "/work/project",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--unshare-net",
      "--cap-drop",
      "ALL",
      "--hostname",
      "sandbox",
      "--die-with-parent",
      "--new-session",
      "--clearenv",
      "--setenv",
      "PATH",
      "/usr/local/bin:/usr/bin:/bin",
      "--setenv",
      "HOME",
      "/tmp",
      "--setenv",
      "LANG",
      "C.UTF-8",
      "--",
      "ls",
      "-la"
    ])
  })

  it("a shell line runs as /bin/sh -c line", () => {
    expect(Sandbox.bwrapArguments(policy, merged, { shell: "ls | wc -l" }).slice(-4)).toEqual([
      "--",
      "/bin/sh",
      "-c",
      "ls | wc -l"
    ])
  })

  it("shares the network only when the policy grants it", () => {
    expect(Sandbox.bwrapArguments(policy, merged, { argv: ["true"] })).toContain("--unshare-net")
    expect(Sandbox.bwrapArguments({ ...policy, network: true }, merged, { argv: ["true"] })).not.toContain(
      "--unshare-net"
    )
  })

  it("not as root: a user namespace that cannot make more, and no --cap-drop", () => {
    const args = Sandbox.bwrapArguments(policy, { ...merged, uid0: false }, { argv: ["true"] })
    expect(args).toContain("--unshare-user")
    expect(args).toContain("--disable-userns")
    expect(args).not.toContain("--cap-drop")
  })

  it("an old layout binds /bin and /lib instead of linking them", () => {
    const old: Sandbox.Host = {
      uid0: true,
      system: [
        { _tag: "Bind", path: "/usr" },
        { _tag: "Bind", path: "/bin" },
        { _tag: "Bind", path: "/lib" }
      ],
      masked: []
    }
    const args = Sandbox.bwrapArguments(policy, old, { argv: ["true"] })
    expect(args.slice(0, 9)).toEqual([
      "--ro-bind",
      "/usr",
      "/usr",
      "--ro-bind",
      "/bin",
      "/bin",
      "--ro-bind",
      "/lib",
      "/lib"
    ])
    expect(args).not.toContain("--symlink")
  })

  it("exposes none of /home, /root, /var, /srv, /mnt, /media, /run, /sys", () => {
    const args = Sandbox.bwrapArguments(policy, merged, { argv: ["true"] })
    for (const hidden of ["/home", "/root", "/var", "/srv", "/mnt", "/media", "/run", "/sys"]) {
      expect(args.some((arg) => arg === hidden || arg.startsWith(`${hidden}/`))).toBe(false)
    }
  })

  it("one --setenv per declared variable, after --clearenv, values as they are", () => {
    const args = Sandbox.bwrapArguments({ ...policy, env: { A: "--bind / /", B: "" } }, merged, { argv: ["env"] })
    const clear = args.indexOf("--clearenv")
    expect(args.slice(clear, clear + 7)).toEqual(["--clearenv", "--setenv", "A", "--bind / /", "--setenv", "B", ""])
  })

  it("nothing of the command comes before the --: flags, -c, FOO=bar, a second --", () => {
    const configuration = (command: Sandbox.Command): ReadonlyArray<string> => {
      const args = Sandbox.bwrapArguments(policy, merged, command)
      return args.slice(0, args.indexOf("--") + 1)
    }
    const plain = configuration({ argv: ["true"] })
    const hostile: ReadonlyArray<ReadonlyArray<string>> = [
      ["--bind", "/", "/"],
      ["--share-net"],
      ["true", "--share-net", "--unshare-all"],
      ["-c", "echo hi"],
      ["FOO=bar", "env"],
      ["--", "--setenv", "X", "Y"],
      ["--args", "0"],
      ["--chdir", "/"]
    ]
    for (const argv of hostile) {
      expect(configuration({ argv })).toEqual(plain)
      expect(Sandbox.bwrapArguments(policy, merged, { argv }).slice(plain.length)).toEqual(argv)
    }
    expect(configuration({ shell: "--bind / /" })).toEqual(plain)
  })
})

describe("launch", () => {
  const launcher = { bwrap: "/usr/bin/bwrap", prlimit: "/usr/bin/prlimit", setpriv: "/usr/bin/setpriv", host: merged }

  it("with a cgroup: the supervisor (its parent-death signal armed by setpriv) joins it, then prlimit sets the file size and memory and runs bwrap", () => {
    const launch = Arguments.launch(policy, launcher, ["ls"], { cgroupProcs: "/cg/x/cgroup.procs" }, 4242)
    expect(launch.file).toBe("/usr/bin/setpriv")
    expect(launch.args.slice(0, 16)).toEqual([
      "--pdeathsig",
      "TERM",
      "--",
      "/bin/sh",
      "-c",
      Arguments.supervisorScript,
      "sh",
      "4242",
      "/cg/x/cgroup.procs",
      "--",
      "/usr/bin/prlimit",
      "--fsize=1000",
      "--data=1073741824",
      "--",
      "/usr/bin/bwrap",
      "--ro-bind"
    ])
    expect(launch.args.at(-1)).toBe("ls")
  })

  it("without one: no cgroup to join, and prlimit bounds the processes too", () => {
    const launch = Arguments.launch(policy, launcher, ["ls"], { nproc: 300 }, 4242)
    expect(launch.file).toBe("/usr/bin/setpriv")
    expect(launch.args.slice(7, 16)).toEqual([
      "4242",
      "",
      "--",
      "/usr/bin/prlimit",
      "--fsize=1000",
      "--data=1073741824",
      "--nproc=300",
      "--",
      "/usr/bin/bwrap"
    ])
  })

  it("the supervisor takes the command's words as positional parameters only, and checks its parent first", () => {
    expect(Arguments.supervisorScript).not.toMatch(/eval|\$\{?@\}?[^"]/)
    expect(Arguments.supervisorScript.split("\n").slice(0, 2)).toEqual([
      "harness=$1; procs=$2; shift 3",
      '[ "$PPID" = "$harness" ] || exit 125'
    ])
    expect(Arguments.supervisorScript).toContain('"$@" &')
  })
})

describe("Capture", () => {
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)

  it("keeps the first bytes, counts them all, cuts on a character boundary", () => {
    const capture = new Capture(5)
    capture.add(bytes("ñ"))
    capture.add(bytes("ññ"))
    capture.add(bytes("tail"))
    expect(capture.result()).toEqual({ text: "ññ", bytes: 10, truncated: true, binary: false })
  })

  it("a whole text under the cap is kept as it is", () => {
    const capture = new Capture(100)
    capture.add(bytes("hello 🍅\n"))
    expect(capture.result()).toEqual({ text: "hello 🍅\n", bytes: 11, truncated: false, binary: false })
  })

  it("a NUL, or bytes that are not UTF-8, are binary: no text", () => {
    const nul = new Capture(100)
    nul.add(new Uint8Array([97, 0, 98]))
    expect(nul.result()).toEqual({ text: "", bytes: 3, truncated: false, binary: true })
    const invalid = new Capture(100)
    invalid.add(new Uint8Array([0xff, 0xfe, 0x41]))
    expect(invalid.result()).toEqual({ text: "", bytes: 3, truncated: false, binary: true })
    const cutShort = new Capture(100)
    cutShort.add(new Uint8Array([0x41, 0xc3]))
    expect(cutShort.result().binary).toBe(true)
  })
})
