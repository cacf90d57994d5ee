/**
 * A throwaway PostgreSQL cluster for tests, benches and CI: `initdb` into a fresh temporary
 * folder as an unprivileged user (the current one; as root, the `postgres` user Debian's package
 * creates, else `nobody`), the server listening on a free loopback port only (and a socket in
 * that folder), trust authentication for the `postgres` role. Stopping it stops the server
 * (`pg_ctl stop -m immediate`) and removes the folder.
 *
 *   node tools/postgres/postgres.ts start          prints `export DATABASE_URL=…` and `export POSTGRES_DIR=…`
 *   node tools/postgres/postgres.ts stop DIR       stops the cluster in DIR and removes DIR
 *   node tools/postgres/postgres.ts run -- CMD…    starts one, runs CMD with DATABASE_URL set,
 *                                                  stops it, exits with CMD's status
 *
 * The binaries are found in `$PG_BIN`, else the newest `/usr/lib/postgresql/<version>/bin`, else
 * on the PATH. Where they are missing, nothing is started and the reason says so (on Debian:
 * `apt-get install -y postgresql`). Exit 2 when no cluster can be started or on bad usage.
 *
 * Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import process from "node:process"

/** A running throwaway cluster. */
export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string
  readonly port: number
  /** The temporary folder holding the data directory, the socket and the log. */
  readonly dir: string
  /** Stops the server and removes the folder (idempotent). */
  readonly stop: () => void
  /**
   * Stops the server at once, as a crash would (`pg_ctl stop -m immediate`: no checkpoint, every
   * connection dropped), keeping its data: for tests of a database that goes away. Idempotent.
   */
  readonly halt: () => void
  /** Starts a halted server again on the same port and data; why not, when it cannot. */
  readonly restart: () => string | undefined
}

/** Why no cluster could be started. */
export interface Unavailable {
  readonly reason: string
}

/** The folder holding `initdb`, `pg_ctl` and `postgres`, or why there is none. */
export const binaries = (): string | Unavailable => {
  const wanted = ["initdb", "pg_ctl", "postgres"]
  const has = (dir: string) => wanted.every((name) => fs.existsSync(path.join(dir, name)))
  const fromEnv = process.env.PG_BIN
  if (fromEnv !== undefined && fromEnv !== "") {
    return has(fromEnv) ? fromEnv : { reason: `PG_BIN=${fromEnv} does not hold ${wanted.join(", ")}` }
  }
  const debian = "/usr/lib/postgresql"
  if (fs.existsSync(debian)) {
    const versions = fs
      .readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a))
    for (const version of versions) {
      const dir = path.join(debian, version, "bin")
      if (has(dir)) return dir
    }
  }
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir !== "" && has(dir)) return dir
  }
  return {
    reason:
      "PostgreSQL's initdb, pg_ctl and postgres were not found (set PG_BIN, or on Debian: apt-get install -y postgresql)"
  }
}

/** The user the server runs as: the current one, or (as root, which postgres refuses) an unprivileged one. */
const serverUser = (): string | undefined | Unavailable => {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined
  for (const user of ["postgres", "nobody"]) {
    if (spawnSync("id", ["-u", user], { encoding: "utf8" }).status === 0) return user
  }
  return { reason: "running as root and neither the user 'postgres' nor 'nobody' exists to run the server" }
}

const isUnavailable = (value: unknown): value is Unavailable =>
  typeof value === "object" && value !== null && "reason" in value

/** Runs a binary as the server's user; its status, and its output on failure. */
const runAs = (
  user: string | undefined,
  bin: string,
  args: ReadonlyArray<string>,
  timeoutMs: number
): { readonly ok: boolean; readonly output: string } => {
  const [command, argv] = user === undefined ? [bin, args] : ["runuser", ["-u", user, "--", bin, ...args]]
  const result = spawnSync(command, argv, { encoding: "utf8", timeout: timeoutMs, cwd: os.tmpdir() })
  const output = `${result.error?.message ?? ""}${result.stdout ?? ""}${result.stderr ?? ""}`.trim()
  return { ok: result.status === 0, output }
}

/** A free TCP port on 127.0.0.1 (the kernel's pick; released before the server binds it). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port"))))
    })
  })

/**
 * Starts a throwaway cluster, or says why it cannot. Takes about a second (`initdb` without
 * syncing its files: the cluster is thrown away; the server itself keeps its default
 * durability settings, so timings measured on it are honest).
 */
export const start = async (): Promise<Cluster | Unavailable> => {
  const bin = binaries()
  if (isUnavailable(bin)) return bin
  const user = serverUser()
  if (isUnavailable(user)) return user
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-harness-pg-"))
  const remove = () => fs.rmSync(dir, { recursive: true, force: true })
  if (user !== undefined) {
    const owned = spawnSync("chown", [user, dir], { encoding: "utf8" })
    if (owned.status !== 0) {
      remove()
      return { reason: `cannot give ${dir} to the user '${user}': ${owned.stderr.trim()}` }
    }
  }
  const data = path.join(dir, "data")
  const log = path.join(dir, "server.log")
  const initdb = runAs(
    user,
    path.join(bin, "initdb"),
    ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
    120_000
  )
  if (!initdb.ok) {
    remove()
    return { reason: `initdb failed: ${initdb.output.slice(-800)}` }
  }
  let problem = ""
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort()
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`
    const started = runAs(
      user,
      path.join(bin, "pg_ctl"),
      ["-D", data, "-o", options, "-l", log, "-w", "-t", "60", "start"],
      90_000
    )
    if (started.ok) {
      let stopped = false
      let halted = false
      const halt = () => {
        if (stopped || halted) return
        halted = true
        runAs(user, path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], 60_000)
      }
      return {
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        port,
        dir,
        stop: () => {
          if (stopped) return
          halt()
          stopped = true
          remove()
        },
        halt,
        restart: () => {
          if (stopped) return "the cluster was stopped and removed"
          if (!halted) return undefined
          const again = runAs(
            user,
            path.join(bin, "pg_ctl"),
            ["-D", data, "-o", options, "-l", log, "-w", "-t", "60", "start"],
            90_000
          )
          if (!again.ok) return `the server did not start again: ${again.output.slice(-800)}`
          halted = false
          return undefined
        }
      }
    }
    problem = `${started.output}\n${fs.existsSync(log) ? fs.readFileSync(log, "utf8").slice(-800) : ""}`.trim()
  }
  remove()
  return { reason: `the server did not start: ${problem}` }
}

/** Stops the cluster whose folder is `dir` (as `start` printed it) and removes the folder. */
export const stop = (dir: string): string | undefined => {
  const data = path.join(dir, "data")
  if (!fs.existsSync(path.join(data, "PG_VERSION"))) return `${dir} holds no cluster started by this script`
  const bin = binaries()
  if (isUnavailable(bin)) return bin.reason
  const user = serverUser()
  if (isUnavailable(user)) return user.reason
  runAs(user, path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], 60_000)
  fs.rmSync(dir, { recursive: true, force: true })
  return undefined
}

const usage =
  "usage: postgres.ts start | stop DIR | run -- COMMAND [ARGS...]\n" +
  "  start  starts a throwaway cluster and prints `export DATABASE_URL=…` and `export POSTGRES_DIR=…`\n" +
  "  stop   stops the cluster in DIR (as start printed it) and removes DIR\n" +
  "  run    starts one, runs COMMAND with DATABASE_URL set, stops it, exits with COMMAND's status\n"

const main = async (args: ReadonlyArray<string>): Promise<number> => {
  const [command, ...rest] = args
  if (command === "start" && rest.length === 0) {
    const cluster = await start()
    if (isUnavailable(cluster)) {
      process.stderr.write(`postgres: ${cluster.reason}\n`)
      return 2
    }
    process.stdout.write(`export DATABASE_URL=${cluster.url}\nexport POSTGRES_DIR=${cluster.dir}\n`)
    return 0
  }
  if (command === "stop" && rest.length === 1 && rest[0] !== undefined) {
    const problem = stop(rest[0])
    if (problem === undefined) return 0
    process.stderr.write(`postgres: ${problem}\n`)
    return 2
  }
  if (command === "run" && rest[0] === "--" && rest.length > 1) {
    const [program, ...programArgs] = rest.slice(1)
    if (program === undefined) return 2
    const cluster = await start()
    if (isUnavailable(cluster)) {
      process.stderr.write(`postgres: ${cluster.reason}\n`)
      return 2
    }
    process.stderr.write(`postgres: a throwaway cluster at ${cluster.url} (${cluster.dir})\n`)
    try {
      const ran = spawnSync(program, programArgs, {
        stdio: "inherit",
        env: { ...process.env, DATABASE_URL: cluster.url }
      })
      if (ran.error !== undefined) process.stderr.write(`postgres: cannot run ${program}: ${ran.error.message}\n`)
      return ran.status ?? 1
    } finally {
      cluster.stop()
    }
  }
  process.stderr.write(usage)
  return 2
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2))
}
