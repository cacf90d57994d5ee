/**
 * An AI SDK provider id (`anthropic.messages`, `openai.responses`, `google.generative-ai`...) in
 * the words of the OpenTelemetry GenAI conventions' `gen_ai.provider.name` (`anthropic`,
 * `openai`, `gcp.gemini`...): the id's first segment, renamed where the conventions spell it
 * otherwise; an unknown provider keeps its first segment.
 *
 * @internal
 */
const renamed: Readonly<Record<string, string>> = {
  google: "gcp.gemini",
  "google-vertex": "gcp.vertex_ai",
  vertex: "gcp.vertex_ai",
  mistral: "mistral_ai",
  xai: "x_ai",
  "amazon-bedrock": "aws.bedrock",
  bedrock: "aws.bedrock",
  azure: "azure.ai.openai",
  "azure-openai": "azure.ai.openai"
}

/** `gen_ai.provider.name` of an AI SDK provider id; `undefined` for an id that is not a string. */
export const genAiProvider = (provider: unknown): string | undefined => {
  if (typeof provider !== "string" || provider === "") return undefined
  const first = provider.split(".")[0] ?? provider
  return Object.hasOwn(renamed, first) ? renamed[first] : first
}
