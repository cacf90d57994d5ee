/**
 * The body of an HTTP request to a served toolset, read within `MessageSize.maxBytes`: a body
 * over it is not kept (only its first and last few kilobytes, to read its JSON-RPC id) and is
 * answered with a JSON-RPC error naming the limit, as stdio does. A body far over it (four
 * times) is not read to its end: the connection is closed after the answer.
 *
 * @internal
 */
import type { IncomingMessage } from "node:http"
import * as MessageSize from "../MessageSize.ts"
import { idFromHead, idFromTail } from "./StdioServer.ts"

/** How much of the start and of the end of an over-size body is kept, to find its id. */
const kept = 4096

/** What was read. */
export type Body =
  | { readonly _tag: "Read"; readonly text: string }
  | {
      readonly _tag: "TooLarge"
      /** The bytes received (at least; more when `drained` is false). */
      readonly bytes: number
      /** The request's id, when it could be read. */
      readonly id: string | number | undefined
      /** False when reading stopped before the body's end: close the connection. */
      readonly drained: boolean
    }

/** Reads `req`'s body within `max` bytes. Rejects when the request fails (the client went away). */
export const read = (req: IncomingMessage, max: number = MessageSize.maxBytes): Promise<Body> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let bytes = 0
    let head: Buffer | undefined
    let tail = Buffer.alloc(0)
    const tooLarge = (drained: boolean): Body => ({
      _tag: "TooLarge",
      bytes,
      id: idFromHead((head ?? Buffer.alloc(0)).toString("utf8")) ?? idFromTail(tail.toString("utf8").trimEnd()),
      drained
    })
    const done = () => {
      cleanup()
      resolve(head === undefined ? { _tag: "Read", text: Buffer.concat(chunks).toString("utf8") } : tooLarge(true))
    }
    const failed = (error: Error) => {
      cleanup()
      reject(error)
    }
    const data = (chunk: Buffer | string) => {
      const piece = typeof chunk === "string" ? Buffer.from(chunk) : chunk
      bytes += piece.length
      if (head === undefined && bytes > max) {
        const all = Buffer.concat([...chunks, piece])
        chunks.length = 0
        head = Buffer.from(all.subarray(0, kept))
        tail = Buffer.from(all.subarray(-kept))
      } else if (head === undefined) {
        chunks.push(piece)
      } else {
        tail = Buffer.from(Buffer.concat([tail, piece.subarray(-kept)]).subarray(-kept))
      }
      if (head !== undefined && bytes > 4 * max) {
        cleanup()
        req.pause()
        resolve(tooLarge(false))
      }
    }
    const cleanup = () => {
      req.off("data", data)
      req.off("end", done)
      req.off("error", failed)
      req.off("aborted", aborted)
    }
    const aborted = () => failed(new Error("the client closed the request"))
    req.on("data", data)
    req.once("end", done)
    req.once("error", failed)
    req.once("aborted", aborted)
  })
