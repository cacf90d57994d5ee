export * from "@agent-harness/mcp/scenario"
