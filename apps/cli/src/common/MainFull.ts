/**
 * The whole command line: the command tree (`Cli.ts`) on Node's platform services, for every
 * command line `Route` leaves to it. Loaded only then.
 *
 * @since 0.1.0
 */
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer } from "effect"
import { ChildProcessSpawner } from "effect/process"
import * as Cli from "../Cli.ts"
import * as ScenarioServices from "../scenarios/ScenarioServices.ts"

/**
 * What the CLI uses of the platform: files, paths, stdio and the terminal. effect/cli also asks
 * for a child-process spawner, which no harness command uses; the Node one would load
 * child_process, net and dgram at every start, so the CLI provides one that says so if it is ever
 * called. Files, paths, the scenarios' MCP mounter and permission gate come from
 * `ScenarioServices` (shared with `harness test`'s worker threads).
 *
 * @since 0.1.0
 */
export const services = Layer.mergeAll(
  ScenarioServices.layer,
  NodeStdio.layer,
  NodeTerminal.layer,
  Layer.succeed(
    ChildProcessSpawner.ChildProcessSpawner,
    ChildProcessSpawner.make(() => Effect.die(new Error("harness runs no commands through effect/cli's spawner")))
  )
)

/**
 * The command line's exit code.
 *
 * @since 0.1.0
 */
export const program = (args: ReadonlyArray<string>): Effect.Effect<number> =>
  Cli.main(args).pipe(Effect.provide(services))
