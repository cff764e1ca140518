import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Screen } from '../catalogue/model.js';
import { SCREEN_SHAPE } from './wire-shape.js';
import { writeRecord, WrittenList } from './written-records.js';
import { XmlWriter } from './xml-writer.js';

const xml = new XmlWriter();
const screen = (id: number, totalSeats = 120): Screen => ({ id, name: `Screen ${id}`, screenNumber: String(id), hasCustomLayout: false, totalSeats, houseSeats: 2, wheelChairSeats: 4 });
const listOf = (screens: readonly Screen[]): WrittenList => WrittenList.of(SCREEN_SHAPE, screens.map((s) => writeRecord(SCREEN_SHAPE, s)), xml);

test('a list laid out in another has the bytes and ETag of the same list written afresh, and a new ETag exactly when its bytes change', () => {
  const before = listOf([screen(1), screen(2), screen(3)]);
  // Joined first, as a list asked for before a change is.
  const tags = { json: before.json.etag, xml: before.xml.etag };
  // Screen 2's seats change: it is written anew, the others are laid out where the list holds them.
  const changed = before.rearranged(Int32Array.of(0, -1, 2), [writeRecord(SCREEN_SHAPE, screen(2, 80))]);
  const afresh = listOf([screen(1), screen(2, 80), screen(3)]);
  for (const format of ['json', 'xml'] as const) {
    assert.deepEqual(changed[format].body, afresh[format].body, format);
    assert.equal(changed[format].etag, afresh[format].etag, `${format}: the ETag of the same bytes`);
    assert.notEqual(changed[format].etag, tags[format], `${format}: another seat count, another ETag`);
  }
  // Back as it was, and in another order, from the changed list.
  const back = changed.rearranged(Int32Array.of(0, -1, 2), [writeRecord(SCREEN_SHAPE, screen(2))]);
  const reordered = changed.rearranged(Int32Array.of(2, 1, 0), []);
  for (const format of ['json', 'xml'] as const) {
    assert.equal(back[format].etag, tags[format], `${format}: the same bytes again, the same ETag`);
    assert.notEqual(reordered[format].etag, changed[format].etag, `${format}: the same records in another order, another ETag`);
    assert.equal(reordered[format].etag, listOf([screen(3), screen(2, 80), screen(1)])[format].etag, format);
  }
  const empty = listOf([]);
  assert.notEqual(empty.json.etag, empty.xml.etag, 'an empty list in JSON and in XML');
});
