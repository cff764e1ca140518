/**
 * `marquee access set|clear|list` as an operator runs it (CONTRACT §15), against the demo cinema
 * and a running `marquee serve` on the same database, which applies each correction without a
 * restart, as it does a token's.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { demoDatabase, demoRecords, runCli, serve, waitFor, type ServerProcess } from './helpers.js';

const FORTNIGHT = 'from=2025-01-06&days=14&sessions=all';
/** How long a running server may take to apply a correction: many of its poll intervals. */
const APPLIED_MS = 15_000;

let database: string;
let server: ServerProcess;
/** The demo's public sessions that carry an attribute, by its id. */
let carrying: (attribute: string) => number[];

before(async () => {
  database = await demoDatabase();
  server = await serve(['--database', database, '--poll-interval', '100']);
  const sessions = (await demoRecords('sessions')).filter((session) => session['ShowType'] === 'Public');
  carrying = (attribute) => sessions.filter((session) => (session['Attributes'] as string[]).includes(attribute)).map((session) => session['Id'] as number).sort((a, b) => a - b);
});

const union = (...lists: number[][]): number[] => [...new Set(lists.flat())].sort((a, b) => a - b);

/** The ids of the sessions of the demo's fortnight that have `term`, sorted. */
async function sessionsWith(term: string): Promise<number[]> {
  const response = await fetch(`${server.url}/programme?${FORTNIGHT}&access=${term}`, { signal: AbortSignal.timeout(10_000) });
  const answer = (await response.json()) as { features: { sessions: { id: number }[] }[] };
  return answer.features.flatMap((feature) => feature.sessions.map((session) => session.id)).sort((a, b) => a - b);
}

function access(...args: string[]): ReturnType<typeof runCli> {
  return runCli(['access', ...args, '--database', database]);
}

describe('marquee access', () => {
  test('list shows each attribute of the demo, the terms its names read as, its subtitles\' language, and that they were read', async () => {
    const listed = await access('list', '--customer', 'default');
    assert.equal(listed.status, 0, listed.stderr);
    const rows = listed.stdout.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));
    assert.deepEqual(rows[0], ['ID', 'DESCRIPTION', 'SHORT NAME', 'TERMS', 'SUBTITLES', 'HOW']);
    assert.deepEqual(rows.slice(1).map((row) => [row[0], row[3], row.at(-1)]), [
      ['0000000001', 'subtitled', 'read'],
      ['0000000002', 'none', 'read'],
      ['0000000003', 'relaxed', 'read'],
      ['0000000004', 'none', 'read'],
      ['0000000005', 'audio-description', 'read'],
      ['0000000006', 'captioned', 'read'],
      ['0000000007', 'parent-and-baby', 'read'],
      ['0000000008', 'dementia-friendly', 'read'],
    ]);
    assert.match(listed.stdout, /0000000001\s+English subtitles\s+SUBS\s+subtitled\s+English \(en\)\s+read/);
  });

  test('set refuses a term outside the vocabulary naming it, none beside a term, and an attribute the cinema does not have; nothing changes', async () => {
    const unknownTerm = await access('set', '--customer', 'default', '0000000004', 'relaxed', 'subtitles');
    assert.equal(unknownTerm.status, 2);
    assert.equal(unknownTerm.stderr.trim(), "marquee: access set: unknown term 'subtitles'; the terms are audio-description, captioned, subtitled, relaxed, parent-and-baby, dementia-friendly, or none");
    const noneAndMore = await access('set', '--customer', 'default', '0000000004', 'none', 'relaxed');
    assert.equal(noneAndMore.status, 2);
    assert.match(noneAndMore.stderr, /'none' means no term, so it comes alone/);
    const noTerm = await access('set', '--customer', 'default', '0000000004');
    assert.equal(noTerm.status, 2);
    assert.match(noTerm.stderr, /name the TERMs/);
    const unknownAttribute = await access('set', '--customer', 'default', 'ZZ', 'relaxed');
    assert.equal(unknownAttribute.status, 1);
    assert.match(unknownAttribute.stderr, /customer 'default' has no attribute 'ZZ'; 'marquee access list --customer default' shows its attributes/);
    const noCustomer = await access('list');
    assert.equal(noCustomer.status, 2);
    assert.match(noCustomer.stderr, /--customer KEY is required/);
    const listed = JSON.parse((await access('list', '--customer', 'default', '--json')).stdout) as { source: string }[];
    assert.ok(listed.every((attribute) => attribute.source === 'read'), 'nothing was set');
  });

  test('set, none and clear reach a running server at once: its programme is prepared again with the corrections', { timeout: 60_000 }, async () => {
    const relaxed = carrying('0000000003');
    const piano = carrying('0000000002');
    assert.deepEqual(await sessionsWith('relaxed'), relaxed, 'the demo\'s relaxed screenings, read from their attribute\'s name');

    const set = await access('set', '--customer', 'default', '0000000002', 'relaxed', 'audio-description', 'relaxed');
    assert.equal(set.status, 0, set.stderr);
    assert.equal(set.stdout.trim(), "Attribute 0000000002 (Live piano accompaniment) of customer 'default' now means: audio-description, relaxed. Running servers apply it within their poll interval.");
    await waitFor(async () => (await sessionsWith('relaxed')).join() === union(relaxed, piano).join(), APPLIED_MS);
    assert.deepEqual(await sessionsWith('audio-description'), union(carrying('0000000005'), piano));

    const none = await access('set', '--customer', 'default', '0000000003', 'none');
    assert.equal(none.status, 0, none.stderr);
    await waitFor(async () => (await sessionsWith('relaxed')).join() === piano.join(), APPLIED_MS);

    const listed = JSON.parse((await access('list', '--customer', 'default', '--json')).stdout) as { id: string; terms: string[]; source: string }[];
    assert.deepEqual(
      listed.filter((attribute) => attribute.source === 'set').map(({ id, terms }) => [id, terms]),
      [
        ['0000000002', ['audio-description', 'relaxed']],
        ['0000000003', []],
      ],
    );

    for (const id of ['0000000002', '0000000003']) {
      const cleared = await access('clear', '--customer', 'default', id);
      assert.equal(cleared.status, 0, cleared.stderr);
      assert.match(cleared.stdout, new RegExp(`Attribute ${id} of customer 'default' is read from its names again`));
    }
    await waitFor(async () => (await sessionsWith('relaxed')).join() === relaxed.join(), APPLIED_MS);
    const again = await access('clear', '--customer', 'default', '0000000002');
    assert.equal(again.status, 0);
    assert.match(again.stdout, /had no correction; nothing changed/);
  });
});
