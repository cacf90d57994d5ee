/**
 * `--command-memory`: a size in bytes or with K, M, G or T (powers of 1024), at least 16M per
 * process; the sandbox's default (4G) when not given; anything else named as the flag's problem.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as AgentCommands from "../src/agent/Commands.ts"

const bytes = (text: string | undefined): number | string => {
  const read = AgentCommands.memoryOf(text)
  return Result.isSuccess(read) ? read.success : read.failure
}

describe("--command-memory", () => {
  it("reads bytes and K, M, G, T (powers of 1024), with or without B or iB, any case", () => {
    expect(bytes(undefined)).toBe(4 * 1024 ** 3)
    expect(bytes("16777216")).toBe(16 * 1024 ** 2)
    expect(bytes("512M")).toBe(512 * 1024 ** 2)
    expect(bytes("512m")).toBe(512 * 1024 ** 2)
    expect(bytes("2G")).toBe(2 * 1024 ** 3)
    expect(bytes("2GiB")).toBe(2 * 1024 ** 3)
    expect(bytes("2 GB")).toBe(2 * 1024 ** 3)
    expect(bytes("65536K")).toBe(64 * 1024 ** 2)
    expect(bytes("1T")).toBe(1024 ** 4)
  })

  it("refuses less than 16M, fractions, negatives, unknown units and sizes past what a number holds exactly", () => {
    for (const text of ["16777215", "1K", "15M", "0", "1.5G", "-1G", "2X", "G", "", "lots", "9999999999999999T"]) {
      expect(bytes(text)).toBe(
        `--command-memory ${JSON.stringify(text)}: expected a size of at least 16M per process, in bytes or with K, M, G or T (512M, 2G)`
      )
    }
  })
})
