/**
 * What `harness agent --context-window` counts tokens with: OpenAI's own tokenizer for an
 * OpenAI model whose encoding is known (@agent-harness/tokenizer, loaded only then, its rank
 * table in a chunk of its own), else `undefined`: the compactor's documented approximation
 * (Anthropic publishes no tokenizer for its current models; an OpenAI-compatible server's
 * model is not known to use OpenAI's encodings).
 *
 * @since 0.1.0
 */
import type { Estimate } from "@agent-harness/compaction"
import { Effect } from "effect"
import { lazy } from "../common/Lazy.ts"
import type { Resolved } from "./Providers.ts"

/**
 * The estimator for `resolved`'s model: OpenAI's encoding for an `openai` or `openai-responses`
 * model that has one, `undefined` otherwise (nothing is loaded for Anthropic).
 *
 * @since 0.1.0
 */
export const estimatorFor = (
  resolved: Pick<Resolved, "provider" | "model">
): Effect.Effect<Estimate.Estimator | undefined> =>
  resolved.provider === "anthropic"
    ? Effect.undefined
    : lazy(
        () => import("@agent-harness/tokenizer"),
        ({ Tokenizer }) => Tokenizer.estimator(resolved.model)
      )
