/**
 * The package under Deno: serves the test toolset over HTTP, mounts it back, and mounts the
 * SDK fixture server over stdio (run by the Node given as the first argument); prints one JSON
 * line per observation. Run by `Deno.test.ts` through `deno run`.
 */
import process from "node:process"
import { fileURLToPath } from "node:url"
import { Execute } from "@agent-harness/executor"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { Effect } from "effect"
import { Mount, Serve } from "../../src/index.ts"
import { tools } from "../fixtures/tools.ts"

const node = process.argv[2] ?? "node"
const sdkServer = fileURLToPath(new URL("../fixtures/sdk-server.ts", import.meta.url))

const program = Effect.gen(function* () {
  const listening = yield* Serve.http(tools, { port: 0 })
  const ours = yield* Mount.mount(Mount.http(listening.url), { prefix: "ours" })
  const sdk = yield* Mount.mount(Mount.stdio(node, [sdkServer]), { prefix: "fx", connectTimeout: 60_000 })
  const calls = [
    [ours.toolset, "ours__read", { path: "a" }],
    [ours.toolset, "ours__read", {}],
    [ours.toolset, "ours__throws", {}],
    [sdk.toolset, "fx__echo", { text: "hola" }],
    [sdk.toolset, "fx__send", { to: "nadie", body: "" }],
    [sdk.toolset, "fx__fail", {}]
  ] as const
  for (const [toolset, name, input] of calls) {
    const outcome = yield* Execute.execute(toolset, { id: name, name, input })
    console.log(JSON.stringify({ name, tag: outcome._tag, content: outcome.content }))
  }
})

await Effect.runPromise(
  Effect.scoped(program).pipe(Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
)
