import { describe, expect, it } from "@effect/vitest"
import { CallResult } from "../src/index.ts"

describe("CallResult.text: a server's result as observation text", () => {
  it("text blocks as they are, other blocks in a line each", () => {
    expect(
      CallResult.text({
        content: [
          { type: "text", text: "a" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///n.md", text: "notes" } },
          {
            type: "resource",
            resource: { uri: "file:///b.bin", blob: "AAECAw==", mimeType: "application/octet-stream" }
          },
          { type: "resource_link", uri: "file:///c.txt", name: "c" }
        ]
      })
    ).toBe(
      "a\n[audio audio/wav, 3 bytes]\nnotes\n[resource file:///b.bin, application/octet-stream, 4 bytes]\n[resource file:///c.txt (c)]"
    )
  })

  it("structured content as JSON when there is no content block; nothing as empty", () => {
    expect(CallResult.text({ content: [], structuredContent: { total: 3 } })).toBe('{"total":3}')
    expect(CallResult.text({ content: [] })).toBe("")
  })
})
