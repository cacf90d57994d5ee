/**
 * The heights of a long list's items, measured or estimated, and the offsets they add up to: what
 * a virtual list needs to know which items are in view without laying them all out. Pure, so it
 * is tested without a browser.
 */
export class Sizes {
  private sizes: Float64Array
  private offsets: Float64Array
  /** Offsets from this index on are stale. */
  private dirty = 0

  private readonly estimate: number

  constructor(count: number, estimate: number) {
    this.estimate = estimate
    this.sizes = new Float64Array(count).fill(estimate)
    this.offsets = new Float64Array(count + 1)
  }

  /** How many items. */
  get count(): number {
    return this.sizes.length
  }

  /** The height of item `i`. */
  size(i: number): number {
    return this.sizes[i] ?? this.estimate
  }

  /** Sets the measured height of item `i`; says whether it changed. */
  set(i: number, size: number): boolean {
    if (i < 0 || i >= this.sizes.length || this.sizes[i] === size) return false
    this.sizes[i] = size
    if (i < this.dirty) this.dirty = i
    return true
  }

  private refresh(): void {
    const n = this.sizes.length
    if (this.dirty > n) return
    let at = this.offsets[this.dirty] ?? 0
    for (let i = this.dirty; i < n; i++) {
      this.offsets[i] = at
      at += this.sizes[i] ?? 0
    }
    this.offsets[n] = at
    this.dirty = n + 1
  }

  /** Where item `i` starts (`count` gives the total height). */
  offset(i: number): number {
    this.refresh()
    return this.offsets[Math.max(0, Math.min(i, this.sizes.length))] ?? 0
  }

  /** The total height. */
  get total(): number {
    return this.offset(this.sizes.length)
  }

  /** The item at height `y` (the last one past the end, 0 before the start or when empty). */
  indexAt(y: number): number {
    this.refresh()
    const n = this.sizes.length
    if (n === 0 || y <= 0) return 0
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((this.offsets[mid] ?? 0) <= y) lo = mid
      else hi = mid - 1
    }
    return lo
  }
}
