import assert from 'node:assert/strict';
import { test } from 'node:test';
import { touchedCount, touchedKeys } from './changed-records.js';

test('changes fold into the keys each kind touched, whatever each did to them', () => {
  const touched = touchedKeys([
    { films: { added: ['F1'], changed: [], removed: [] }, sessions: { added: [], changed: [7], removed: [] } },
    { films: { added: [], changed: [], removed: ['F1', 'F2'] }, site: { added: [], changed: ['site'], removed: [] } },
    { sessions: { added: [8], changed: [7], removed: [] } },
  ]);
  assert.deepEqual([...touched.films], ['F1', 'F2']);
  assert.deepEqual([...touched.sessions], ['7', '8'], 'keys as text, each once');
  assert.deepEqual([...touched.site], ['site']);
  assert.equal(touched.packages.size, 0);
  assert.equal(touchedCount(touched), 5);
});

test('no change touches nothing', () => {
  assert.equal(touchedCount(touchedKeys([])), 0);
});
