import type { Ids } from '../kernel/ports.ts';

/** A new id that `taken` does not know: an id source may repeat itself (a seeded one does). */
export function freshId(ids: Ids, length: number, taken: (id: string) => boolean): string {
  for (;;) {
    const id = ids.hex(length);
    if (!taken(id)) return id;
  }
}
