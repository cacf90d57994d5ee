/**
 * The Postgres soak's child processes (its runners, its answering child): started with the
 * soak's Node, read as JSON lines on stdout (`{"ready":true}` once up, `{"holding":…}` when held
 * waiting to be killed, anything else handed to the caller), written to on stdin, and killed
 * with SIGKILL.
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import process from "node:process"
import { Data, Deferred, Effect, Predicate, type Scope } from "effect"

/**
 * The soak could not be set up: no database could be created, a runner would not start.
 *
 * @since 0.1.0
 */
export class SetupError extends Data.TaggedError("SetupError")<{ readonly message: string }> {}

/**
 * A child process, one life of it.
 *
 * @since 0.1.0
 */
export interface Child {
  /** How the soak names it: `runner :34431`, `answerer`. */
  readonly label: string
  readonly process: ChildProcess
  /** Resolves when the process has exited. */
  readonly closed: Deferred.Deferred<void>
  /** Resolves when it says it holds (`{"holding":…}`). */
  readonly holding: Deferred.Deferred<void>
}

/** A child that has not said it is ready by then is stuck. */
const readyMillis = 120_000

/** How long a child asked to hold may take to get there before it is killed anyway. */
export const holdMillis = 15_000

/**
 * A free TCP port on 127.0.0.1.
 *
 * @since 0.1.0
 */
export const freePort: Effect.Effect<number, SetupError> = Effect.callback<number, SetupError>((resume) => {
  const server = net.createServer()
  server.once("error", (error) => resume(Effect.fail(new SetupError({ message: `no free port: ${error.message}` }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * Starts `node entry ...args` and waits until it says it is ready (or fails saying why it is
 * not). Every other JSON line goes to `onLine` with the child; a line that is not JSON is a
 * problem. The process is killed with the scope.
 *
 * @since 0.1.0
 */
export const start = (
  entry: string,
  args: ReadonlyArray<string>,
  label: string,
  onLine: (line: { readonly [key: string]: unknown }, child: Child) => void,
  problems: Array<string>
): Effect.Effect<Child, SetupError, Scope.Scope> =>
  Effect.gen(function* () {
    const ready = yield* Deferred.make<void, SetupError>()
    const closed = yield* Deferred.make<void>()
    const holding = yield* Deferred.make<void>()
    const spawned = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, ["--disable-warning=ExperimentalWarning", entry, ...args], {
          stdio: ["pipe", "pipe", "pipe"]
        })
      ),
      (spawned) =>
        Effect.andThen(
          Effect.sync(() => {
            if (spawned.exitCode === null && spawned.signalCode === null) spawned.kill("SIGKILL")
          }),
          Deferred.await(closed)
        )
    )
    const child: Child = { label, process: spawned, closed, holding }
    let stdout = ""
    let stderr = ""
    const read = (text: string) => {
      let line: unknown
      try {
        line = JSON.parse(text)
      } catch {
        problems.push(`${label} printed a line that is not JSON: ${text.slice(0, 200)}`)
        return
      }
      if (!Predicate.isObject(line)) problems.push(`${label} printed ${text.slice(0, 200)}`)
      else if (line.ready === true) Deferred.doneUnsafe(ready, Effect.void)
      else if (typeof line.holding === "string") Deferred.doneUnsafe(holding, Effect.void)
      else onLine(line, child)
    }
    spawned.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      for (let end = stdout.indexOf("\n"); end >= 0; end = stdout.indexOf("\n")) {
        read(stdout.slice(0, end))
        stdout = stdout.slice(end + 1)
      }
    })
    spawned.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      // The engine's logs: only the end is kept, to say why a child did not start.
      stderr = (stderr + chunk).slice(-8000)
    })
    // A child killed while the driver writes to it: nothing to say.
    spawned.stdin?.on("error", () => {})
    spawned.on("close", (code, signal) => {
      Deferred.doneUnsafe(
        ready,
        Effect.fail(
          new SetupError({
            message: `${label} exited with ${signal ?? `code ${code}`} before it was ready: ${stderr.trim().slice(-800)}`
          })
        )
      )
      Deferred.doneUnsafe(closed, Effect.void)
    })
    yield* Deferred.await(ready).pipe(
      Effect.timeoutOrElse({
        duration: readyMillis,
        orElse: () => Effect.fail(new SetupError({ message: `${label} was not ready after ${readyMillis / 1000} s` }))
      })
    )
    return child
  })

/**
 * Whether a child is still running.
 *
 * @since 0.1.0
 */
export const alive = (child: Child): boolean => child.process.exitCode === null && child.process.signalCode === null

/**
 * Writes a line on a child's stdin (nothing when it has gone).
 *
 * @since 0.1.0
 */
export const write = (child: Child, line: string): Effect.Effect<void> =>
  Effect.sync(() => {
    if (alive(child)) child.process.stdin?.write(`${line}\n`)
  })

/**
 * Writes `command` and waits until the child holds (or `holdMillis`): whether it holds.
 *
 * @since 0.1.0
 */
export const holdAfter = (child: Child, command: string): Effect.Effect<boolean> =>
  Effect.andThen(
    write(child, command),
    Deferred.await(child.holding).pipe(
      Effect.as(true),
      Effect.timeoutOrElse({ duration: holdMillis, orElse: () => Effect.succeed(false) })
    )
  )

/**
 * Kills a child with SIGKILL and waits for it to exit: whether it was running.
 *
 * @since 0.1.0
 */
export const kill = (child: Child): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const running = alive(child)
    if (running) child.process.kill("SIGKILL")
    yield* Deferred.await(child.closed)
    return running
  })
