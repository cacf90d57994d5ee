/**
 * The `command` tool: a program run inside a bubblewrap sandbox over the root folder (the system
 * read-only, no network unless granted, a private `/tmp`, the environment cleared, processes,
 * output and time bounded), in English and Spanish, and the sandbox itself.
 *
 * @since 0.1.0
 */

/** The sandbox: its policy, `detect`, and `run` for one command in it. @since 0.1.0 */
export * as Sandbox from "./Sandbox.ts"
/** The command tools (`command`/`comando`, opt-in `shell`/`consola`) over a sandbox, their texts and failures. @since 0.1.0 */
export * as CommandTool from "./CommandTool.ts"
