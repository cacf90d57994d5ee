/**
 * A full garbage collection on demand, without `--expose-gc` on the command line.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

const fromGlobal = (globalThis as { readonly gc?: () => void }).gc

const exposed = (): (() => void) => {
  if (fromGlobal !== undefined) return fromGlobal
  setFlagsFromString("--expose-gc")
  return runInNewContext("gc") as () => void
}

export const gc: () => void = exposed()

/** Heap used after a full collection, bytes. */
export const heapUsed = (): number => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
