export interface Due {
  at: number;
  id: string;
  /** The record version the entry was made for; a later write makes it stale. */
  version: number;
}

/** Binary min-heap by time. Entries are never removed early: stale ones are skipped when popped. */
export class DueHeap {
  private items: Due[] = [];

  push(item: Due): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent].at <= a[i].at) break;
      [a[parent], a[i]] = [a[i], a[parent]];
      i = parent;
    }
  }

  /** Removes and returns the earliest entry if it is due at `now`. */
  popDue(now: number): Due | undefined {
    const a = this.items;
    if (a.length === 0 || a[0].at > now) return undefined;
    const top = a[0];
    const last = a.pop() as Due;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let min = i;
        if (l < a.length && a[l].at < a[min].at) min = l;
        if (r < a.length && a[r].at < a[min].at) min = r;
        if (min === i) break;
        [a[min], a[i]] = [a[i], a[min]];
        i = min;
      }
    }
    return top;
  }
}
