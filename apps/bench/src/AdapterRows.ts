/**
 * Row 10: the AI SDK adapter's own cost per turn — the history turned into the provider's
 * prompt, the request sent through the retry policy, and the reply turned back into the loop's
 * blocks — with a model whose `doGenerate` answers at once, so only the adapter is timed. The
 * history is 10 earlier turns (reasoning with a signature, text, two tool calls under aliased
 * names, their two results) and the reply the same again. Compared with the loop's own cost per
 * tool call (row 3): a real provider takes 100 ms or more per turn, so the adapter must stay a
 * rounding error beside it.
 */
import { AiSdkModel } from "@agent-harness/ai-sdk"
import { Message, type Model } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, Schema } from "effect"
import { check } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

type LanguageModelV4 = Parameters<typeof AiSdkModel.make>[0]
type GenerateResult = Awaited<ReturnType<LanguageModelV4["doGenerate"]>>

const turns = 10

const Append = Tool.make("añadir", {
  description: "Añade texto al final de un fichero",
  parameters: Schema.Struct({ ruta: Schema.String, texto: Schema.String }),
  run: () => "ok"
})
const Search = Tool.make("catalogo.buscar", {
  description: "Busca en el catálogo",
  parameters: Schema.Struct({ consulta: Schema.String }),
  run: ({ consulta }) => `3 recetas de ${consulta}`
})
const toolset = Toolset.make(Append, Search)

const signature = { anthropic: { signature: "x".repeat(200) } }

const history: ReadonlyArray<Message.Message> = [
  Message.system("Eres un asistente de cocina."),
  Message.user("Prepara la lista de la compra del salmorejo."),
  ...Array.from({ length: turns }, (_, i) => [
    Message.assistant([
      Message.reasoning(`Paso ${i}: busco y apunto.`, signature),
      Message.text(`Voy con el paso ${i}.`),
      Message.toolUse(`c${i}a`, "catalogo.buscar", { consulta: `ingrediente ${i}` }),
      Message.toolUse(`c${i}b`, "añadir", { ruta: "lista.txt", texto: `ingrediente ${i}` })
    ]),
    Message.user([
      Message.toolResult(`c${i}a`, `3 recetas de ingrediente ${i}`, false),
      Message.toolResult(`c${i}b`, "not executed: missing field 'texto'", true)
    ])
  ]).flat()
]

const result: GenerateResult = {
  content: [
    { type: "reasoning", text: "Sigo con el siguiente.", providerMetadata: signature },
    { type: "text", text: "Sigo." },
    { type: "tool-call", toolCallId: "n1", toolName: "catalogo_buscar", input: '{"consulta":"pan"}' },
    { type: "tool-call", toolCallId: "n2", toolName: "anadir", input: '{"ruta":"lista.txt","texto":"pan"}' }
  ],
  finishReason: { unified: "tool-calls", raw: "tool_use" },
  usage: {
    inputTokens: { total: 1200, noCache: 1200, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 80, text: 60, reasoning: 20 }
  },
  warnings: []
}

/** A provider that answers at once: what is timed is the adapter alone. */
const instant: LanguageModelV4 = {
  specificationVersion: "v4",
  provider: "bench.instant",
  modelId: "instant",
  supportedUrls: {},
  doGenerate: () => Promise.resolve(result),
  doStream: () => Promise.reject(new Error("not used"))
}

export const measure = async (settings: Measure.Settings, loopPerCall: number): Promise<ReadonlyArray<Table.Row>> => {
  const model = AiSdkModel.make(instant)
  const request: Model.Request = { messages: history, toolset, turn: turns + 1 }
  const once = () => Effect.runPromise(model.respond(request))

  const reply = await once()
  check(reply.content.length === 4 && reply.finishReason === "tool-calls", "the adapter gives the four blocks back")
  check(
    reply.content.some((b) => b.type === "tool_use" && b.name === "añadir"),
    "the adapter maps the alias back to the tool's name"
  )

  const results = await Measure.run([{ name: "adapter.turn", fn: once }], settings)
  const perTurn = Measure.get(results, "adapter.turn")
  const ratio = perTurn / loopPerCall
  return [
    {
      id: "10",
      label: `AI SDK adapter per turn: a ${history.length}-message history to the provider's prompt, a 4-block reply back (instant provider)`,
      value: Table.duration(perTurn),
      target: "≤ 100 µs",
      met: perTurn <= 100_000
    },
    {
      id: "10",
      label: "the adapter per turn ÷ the loop per tool call (row 3)",
      value: `×${Table.times(ratio)}`
    }
  ]
}
