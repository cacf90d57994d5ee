/**
 * Test helpers for code that talks to model providers: a loopback fake of the Anthropic and
 * OpenAI HTTP APIs (`FakeProvider`). Node (and Deno) only: it starts a `node:http` server.
 *
 * @since 0.1.0
 */

/** A loopback fake of the Anthropic and OpenAI HTTP APIs that answers from a script and records every request. @since 0.1.0 */
export * as FakeProvider from "./FakeProvider.ts"
