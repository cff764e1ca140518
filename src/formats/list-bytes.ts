/**
 * Joins records already written into the bytes of a list, with one copy of each: a catalogue's
 * list is megabytes made of thousands of records, and joining it through an array of every
 * piece took about twice as long, all of it in one turn of the event loop.
 */

export interface ListFraming {
  readonly start: Uint8Array;
  readonly end: Uint8Array;
  /** Written before each item. */
  readonly itemStart?: Uint8Array;
  /** Written after each item. */
  readonly itemEnd?: Uint8Array;
  /** Written between two items. */
  readonly separator?: Uint8Array;
}

/** The items of a list, each read where it lies: a list's bytes are copied from them once, with no view made of each. */
export interface ListItems {
  readonly count: number;
  lengthAt(index: number): number;
  /** Copies the item at `index` into `target` from `offset` on. */
  copyAt(index: number, target: Buffer, offset: number): void;
}

const NOTHING = new Uint8Array(0);

/** The length of the list of `items` in `framing`, without joining it. */
export function listLength(items: ListItems, framing: ListFraming): number {
  const { start, end, itemStart = NOTHING, itemEnd = NOTHING, separator = NOTHING } = framing;
  let length = start.length + end.length + items.count * (itemStart.length + itemEnd.length) + Math.max(0, items.count - 1) * separator.length;
  for (let index = 0; index < items.count; index++) length += items.lengthAt(index);
  return length;
}

/**
 * The list of `items` in `framing`. Given `spans` (two numbers an item), it tells where each
 * item's own bytes lie in the list: its start, then its end.
 */
export function joinList(items: ListItems, framing: ListFraming, spans?: Uint32Array): Buffer {
  const { start, end, itemStart = NOTHING, itemEnd = NOTHING, separator = NOTHING } = framing;
  const list = Buffer.allocUnsafe(listLength(items, framing));
  let offset = 0;
  const put = (bytes: Uint8Array): void => {
    list.set(bytes, offset);
    offset += bytes.length;
  };
  put(start);
  for (let index = 0; index < items.count; index++) {
    if (index > 0) put(separator);
    put(itemStart);
    const length = items.lengthAt(index);
    if (spans !== undefined) {
      spans[index * 2] = offset;
      spans[index * 2 + 1] = offset + length;
    }
    items.copyAt(index, list, offset);
    offset += length;
    put(itemEnd);
  }
  put(end);
  return list;
}
