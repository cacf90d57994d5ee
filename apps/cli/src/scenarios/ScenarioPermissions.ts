export * from "@agent-harness/permission/scenario"
