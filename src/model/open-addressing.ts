/**
 * The slot table shared by the SDK's open-addressing hash tables (the builder's id registry, the
 * id ledger): an `Int32Array` whose slots hold an entry's dense index + 1 (0 is an empty slot),
 * probed linearly from the entry's hash, its size a power of two kept at most half full so
 * probes stay short. The entries themselves (keys, UUID words) live in the caller's columns.
 */

/**
 * A table of `size` slots (a power of two) holding entries `0 … count − 1`, each placed from its
 * hash; an entry whose hash is `undefined` is not in the table (it is kept elsewhere).
 */
export function slotTable(size: number, count: number, hashOf: (entry: number) => number | undefined): Int32Array<ArrayBuffer> {
  const table = new Int32Array(size);
  const mask = size - 1;
  for (let e = 0; e < count; e++) {
    const hash = hashOf(e);
    if (hash === undefined) continue;
    let i = hash & mask;
    while (table[i] !== 0) i = (i + 1) & mask;
    table[i] = e + 1;
  }
  return table;
}
