export * from "@agent-harness/mcp/config"
