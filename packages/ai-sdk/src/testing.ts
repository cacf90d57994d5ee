/**
 * Test helpers for code that talks to model providers: a loopback fake of the Anthropic and
 * OpenAI (Chat Completions and Responses) HTTP APIs, misbehaving on demand (`FakeProvider`).
 * Node (and Deno) only: it starts a `node:http` server.
 *
 * @since 0.1.0
 */

/** A loopback fake of the Anthropic and OpenAI (Chat Completions, Responses) HTTP APIs that answers from a script, misbehaves on demand and records every request. @since 0.1.0 */
export * as FakeProvider from "./FakeProvider.ts"
