export * from "@agent-harness/scenario/TreeRoots"
