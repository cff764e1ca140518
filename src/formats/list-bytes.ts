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

const NOTHING = new Uint8Array(0);

/** The length of the list of `items` in `framing`, without joining it. */
export function listLength(items: readonly Uint8Array[], framing: ListFraming): number {
  const { start, end, itemStart = NOTHING, itemEnd = NOTHING, separator = NOTHING } = framing;
  let length = start.length + end.length + items.length * (itemStart.length + itemEnd.length) + Math.max(0, items.length - 1) * separator.length;
  for (const item of items) length += item.length;
  return length;
}

/**
 * The list of `items` in `framing`. Given `spans` (two numbers an item), it tells where each
 * item's own bytes lie in the list: its start, then its end.
 */
export function joinList(items: readonly Uint8Array[], framing: ListFraming, spans?: Uint32Array): Buffer {
  const { start, end, itemStart = NOTHING, itemEnd = NOTHING, separator = NOTHING } = framing;
  const list = Buffer.allocUnsafe(listLength(items, framing));
  let offset = 0;
  const put = (bytes: Uint8Array): void => {
    list.set(bytes, offset);
    offset += bytes.length;
  };
  put(start);
  for (const [index, item] of items.entries()) {
    if (index > 0) put(separator);
    put(itemStart);
    if (spans !== undefined) {
      spans[index * 2] = offset;
      spans[index * 2 + 1] = offset + item.length;
    }
    put(item);
    put(itemEnd);
  }
  put(end);
  return list;
}
