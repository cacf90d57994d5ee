/**
 * The Schemas of a result's rich parts: what each part holds, which of its fields may be left
 * out, and that a part of one kind is not read as another.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { ToolContent } from "../src/index.ts"

const decode = (input: unknown) => {
  const decoded = Schema.decodeUnknownResult(ToolContent.Part)(input, { onExcessProperty: "error" })
  return Result.isSuccess(decoded) ? decoded.success : "refused"
}

describe("ToolContent's parts", () => {
  it("an image and a sound: a media type and base64 bytes, both required", () => {
    const image = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }
    expect(decode(image)).toStrictEqual(image)
    expect(decode({ type: "audio", mediaType: "audio/wav", data: "UklGRg==" })).toStrictEqual({
      type: "audio",
      mediaType: "audio/wav",
      data: "UklGRg=="
    })
    expect(decode({ type: "image", mediaType: "image/png" })).toBe("refused")
    expect(decode({ type: "audio", data: "UklGRg==" })).toBe("refused")
    expect(Object.keys(ToolContent.ImagePart.fields)).toStrictEqual(["type", "mediaType", "data"])
  })

  it("a resource link: a uri, and a name, media type and description that may be left out", () => {
    expect(decode({ type: "resource_link", uri: "file:///a" })).toStrictEqual({
      type: "resource_link",
      uri: "file:///a"
    })
    const full = { type: "resource_link", uri: "file:///a", name: "a", mimeType: "text/plain", description: "the a" }
    expect(decode(full)).toStrictEqual(full)
    expect(decode({ type: "resource_link", name: "a" })).toBe("refused")
    expect(decode({ type: "resource_link", uri: "file:///a", text: "x" })).toBe("refused")
    expect(decode({ type: "resource_link", uri: "file:///a", name: undefined })).toBe("refused")
    expect(Object.keys(ToolContent.ResourceLinkPart.fields)).toStrictEqual([
      "type",
      "uri",
      "name",
      "mimeType",
      "description"
    ])
  })

  it("an embedded resource: a uri, and a media type, text or blob that may be left out", () => {
    expect(decode({ type: "resource", uri: "file:///n.md", text: "notes" })).toStrictEqual({
      type: "resource",
      uri: "file:///n.md",
      text: "notes"
    })
    expect(
      decode({ type: "resource", uri: "file:///b", blob: "AAE=", mimeType: "application/octet-stream" })
    ).toStrictEqual({ type: "resource", uri: "file:///b", blob: "AAE=", mimeType: "application/octet-stream" })
    expect(decode({ type: "resource", uri: "file:///a", name: "a" })).toBe("refused")
    expect(decode({ type: "resource", uri: 1 })).toBe("refused")
    expect(decode({ type: "video", uri: "file:///a" })).toBe("refused")
  })
})
