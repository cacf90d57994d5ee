/**
 * OpenTelemetry for agent-harness runs: the loop's and plan sessions' spans (the GenAI semantic
 * conventions) exported over OTLP (`http/protobuf`, `http/json`), configured by the standard
 * `OTEL_*` variables. An edge: the core never imports it.
 *
 * @since 0.1.0
 */

/** `Telemetry.layer(options)`, `Telemetry.fromEnv(env)`, `ConfigError`. @since 0.1.0 */
export * as Telemetry from "./Telemetry.ts"
