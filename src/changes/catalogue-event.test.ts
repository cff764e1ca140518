import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CacheTags } from './cache-tags.js';
import { catalogueEvent, eventId } from './catalogue-event.js';

const tags = new CacheTags('a key');
const changedAt = new Date('2026-11-27T21:00:00.000Z');

test('an event names the kinds a change touched, in the order of kinds, and the tags of those kinds only', () => {
  const event = catalogueEvent('roxy', { version: 7, changedAt, change: { sessions: { added: [3], changed: [], removed: [1] }, films: { added: [], changed: ['A'], removed: [] } } }, tags);
  assert.deepEqual(event, {
    type: 'catalogue.changed',
    timestamp: '2026-11-27T21:00:00.000Z',
    data: {
      customer: 'roxy',
      version: 7,
      changes: { films: { added: [], changed: ['A'], removed: [] }, sessions: { added: [3], changed: [], removed: [1] } },
      tags: [tags.kindTag('roxy', 'films'), tags.kindTag('roxy', 'sessions')],
    },
  });
  assert.equal(eventId('roxy', 7), 'msg_roxy_7');
});

test('a list of more than 1,000 ids is cut there, and its kind marked truncated', () => {
  const many = Array.from({ length: 1001 }, (_, index) => index + 1);
  const { data } = catalogueEvent('roxy', { version: 1, changedAt, change: { sessions: { added: many, changed: [], removed: [] }, films: { added: many.slice(0, 1000), changed: [], removed: [] } } }, tags);
  assert.equal(data.changes['sessions']?.added.length, 1000);
  assert.equal(data.changes['sessions']?.truncated, true);
  assert.equal(data.changes['films']?.added.length, 1000);
  assert.equal('truncated' in (data.changes['films'] ?? {}), false);
});

test("a customer's tags are a keyed digest: the same for the same key, another for another key, never the customer's key", () => {
  assert.equal(new CacheTags('a key').customerTag('roxy'), tags.customerTag('roxy'));
  assert.notEqual(new CacheTags('another key').customerTag('roxy'), tags.customerTag('roxy'));
  assert.ok(!tags.customerTag('roxy').includes('roxy'));
  assert.deepEqual(tags.answerHeaders('roxy', ['films', 'site']), {
    'surrogate-key': `${tags.customerTag('roxy')} ${tags.customerTag('roxy')}-films ${tags.customerTag('roxy')}-site`,
    'cache-tag': `${tags.customerTag('roxy')},${tags.customerTag('roxy')}-films,${tags.customerTag('roxy')}-site`,
  });
});
