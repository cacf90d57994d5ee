/**
 * A virtual list on the page's own scroll: only the items in view (and a margin around them)
 * are in the document, between two spacers that stand for the others. Heights are estimated
 * until an item has been drawn once, then measured; when an item above the view turns out
 * taller or shorter than estimated, the page scrolls by the difference so what is in view stays
 * put. Works for `<div>` feeds and for `<tbody>` rows alike (the caller makes the spacers).
 */
import { Sizes } from "./Sizes.ts"

/** What a list draws. */
export interface Options {
  /** The element the items go in (a feed, a `<tbody>`). */
  readonly parent: HTMLElement
  /** How many items there are in all (indexes `0 … total - 1`). */
  readonly total: number
  /** Draws item `index` (an index into all items, not into the shown ones). */
  readonly render: (index: number, position: number, shown: number) => HTMLElement
  /** A spacer element (a `<div>`, or a `<tr>` with one cell for a table). */
  readonly spacer: () => HTMLElement
  /** The height an item is assumed to have before it is drawn. */
  readonly estimate: number
  /** What covers the top of the window (a sticky toolbar), in pixels. */
  readonly covered: () => number
}

/** How far beyond the window items are drawn, in pixels. */
const margin = 800

/** A virtual list. */
export class VirtualList {
  private shown: ReadonlyArray<number> = []
  private sizes: Sizes
  /** Measured heights by item index; 0 when not measured yet. */
  private readonly measured: Float64Array
  private readonly drawn = new Map<number, HTMLElement>()
  private readonly top: HTMLElement
  private readonly bottom: HTMLElement
  private scheduled = 0
  private active = false
  private readonly onScroll = () => this.schedule()

  private readonly options: Options

  constructor(options: Options) {
    this.options = options
    this.measured = new Float64Array(options.total)
    this.sizes = new Sizes(0, options.estimate)
    this.top = options.spacer()
    this.bottom = options.spacer()
    this.top.setAttribute("aria-hidden", "true")
    this.bottom.setAttribute("aria-hidden", "true")
    options.parent.replaceChildren(this.top, this.bottom)
  }

  /** Starts following the window's scroll and size (when its view is shown). */
  start(): void {
    if (this.active) return
    this.active = true
    window.addEventListener("scroll", this.onScroll, { passive: true })
    window.addEventListener("resize", this.onScroll)
    this.update()
  }

  /** Stops following them (when its view is hidden). */
  stop(): void {
    this.active = false
    window.removeEventListener("scroll", this.onScroll)
    window.removeEventListener("resize", this.onScroll)
    if (this.scheduled !== 0) cancelAnimationFrame(this.scheduled)
    this.scheduled = 0
  }

  /** The items to show (indexes into all items, in order); drawn items are redrawn. */
  show(items: ReadonlyArray<number>): void {
    this.shown = items
    this.sizes = new Sizes(items.length, this.options.estimate)
    for (let p = 0; p < items.length; p++) {
      const known = this.measured[items[p] ?? 0] ?? 0
      if (known > 0) this.sizes.set(p, known)
    }
    for (const element of this.drawn.values()) element.remove()
    this.drawn.clear()
    if (this.active) this.update()
  }

  /** How many items are shown. */
  get length(): number {
    return this.shown.length
  }

  /** The item shown at a position. */
  item(position: number): number | undefined {
    return this.shown[position]
  }

  /** The position of an item among the shown ones, or -1. */
  positionOf(index: number): number {
    return this.shown.indexOf(index)
  }

  /** The position of the first item in view (under what covers the top of the window). */
  positionInView(): number {
    return this.sizes.indexAt(window.scrollY - this.listTop() + this.options.covered())
  }

  /** The drawn element of an item, if it is drawn. */
  element(index: number): HTMLElement | undefined {
    return this.drawn.get(index)
  }

  private schedule(): void {
    if (this.scheduled !== 0 || !this.active) return
    this.scheduled = requestAnimationFrame(() => {
      this.scheduled = 0
      this.update()
    })
  }

  /** Where the list starts, from the top of the document. */
  private listTop(): number {
    return this.options.parent.getBoundingClientRect().top + window.scrollY
  }

  /** Draws what is in view, measures it, and keeps what is in view in place. */
  update(): void {
    for (let round = 0; round < 4; round++) {
      if (!this.draw()) return
    }
  }

  /** One round: draw, measure; says whether a measurement changed a height. */
  private draw(): boolean {
    const n = this.shown.length
    const listTop = this.listTop()
    const viewTop = window.scrollY - listTop
    const from = this.sizes.indexAt(viewTop - margin)
    const to = n === 0 ? 0 : Math.min(n, this.sizes.indexAt(viewTop + window.innerHeight + margin) + 1)
    // The first item in view, and where it is: kept in place after measuring.
    const anchor = this.sizes.indexAt(Math.max(0, viewTop))
    const anchorBefore = this.sizes.offset(anchor)

    const wanted = new Set<number>()
    for (let p = from; p < to; p++) wanted.add(this.shown[p] ?? 0)
    for (const [index, element] of this.drawn) {
      if (!wanted.has(index)) {
        element.remove()
        this.drawn.delete(index)
      }
    }
    let previous: HTMLElement = this.top
    for (let p = from; p < to; p++) {
      const index = this.shown[p] ?? 0
      let element = this.drawn.get(index)
      if (element === undefined) {
        element = this.options.render(index, p, n)
        this.drawn.set(index, element)
      }
      if (previous.nextSibling !== element) previous.after(element)
      previous = element
    }
    this.top.style.height = `${this.sizes.offset(from)}px`
    this.bottom.style.height = `${this.sizes.total - this.sizes.offset(to)}px`

    let changed = false
    for (let p = from; p < to; p++) {
      const index = this.shown[p] ?? 0
      const element = this.drawn.get(index)
      if (element === undefined) continue
      const height = element.getBoundingClientRect().height
      if (height > 0) {
        this.measured[index] = height
        if (this.sizes.set(p, height)) changed = true
      }
    }
    if (!changed) return false
    this.top.style.height = `${this.sizes.offset(from)}px`
    this.bottom.style.height = `${this.sizes.total - this.sizes.offset(to)}px`
    const shift = this.sizes.offset(anchor) - anchorBefore
    if (shift !== 0 && viewTop > 0) window.scrollBy(0, shift)
    return true
  }

  /** Scrolls item `position` (among the shown ones) to the top of the window, under what covers it. */
  scrollTo(position: number): void {
    if (position < 0 || position >= this.shown.length) return
    for (let round = 0; round < 6; round++) {
      const target = this.listTop() + this.sizes.offset(position) - this.options.covered()
      window.scrollTo(0, Math.max(0, target))
      this.update()
      const after = this.listTop() + this.sizes.offset(position) - this.options.covered()
      if (
        Math.abs(after - window.scrollY) < 1 ||
        window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1
      ) {
        return
      }
    }
  }
}
