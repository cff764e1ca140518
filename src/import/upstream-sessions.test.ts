import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../scripts/generate-catalogue.js';
import { objectsOfArray, UpstreamSessions, type SessionsToRead } from './upstream-sessions.js';

type Json = Record<string, unknown>;

const sessions: Json[] = [1, 2, 3, 4].map((id) => ({ Id: id, Title: `Session ${id} "{[" \\`, SeatsAvailable: 10, Attributes: ['A', { nested: [id] }] }));
const webSessions: Json[] = sessions.filter(({ Id }) => Id !== 4).map((session) => ({ Url: `https://tickets.example/${String(session['Id'])}`, ...session }));
const bytes = (records: readonly Json[], space?: number): Buffer => Buffer.from(JSON.stringify(records, null, space));
const ids = (list: Buffer): unknown[] => (JSON.parse(list.toString()) as Json[]).map(({ Id }) => Id);

/** What a sync reads of the lists after one that wrote `sessions` and `webSessions`. */
function after(nextSessions: readonly Json[], nextWebSessions: readonly Json[]): SessionsToRead | undefined {
  const first = UpstreamSessions.toRead(bytes(sessions), bytes(webSessions), undefined);
  assert.ok(first !== undefined);
  return UpstreamSessions.toRead(bytes(nextSessions), bytes(nextWebSessions), first.upstream);
}

test('objects of an array are found whatever their strings hold, and anything else is not an array of objects', { timeout: 5000 }, () => {
  for (const space of [undefined, 2]) {
    const list = bytes(sessions, space);
    const found = objectsOfArray(list);
    assert.deepEqual(found?.starts.map((start, index) => JSON.parse(list.subarray(start, found.ends[index]).toString()) as unknown), sessions);
    assert.deepEqual(found.ids, [1, 2, 3, 4]);
  }
  assert.deepEqual(objectsOfArray(Buffer.from(' [ ] \n')), { starts: [], ends: [], ids: [] });
  for (const text of ['{"Id":1}', '[1,2]', '[{"Id":1},]', '[{"Id":1} {"Id":2}]', '[{"Id":1}] x', '[{"Id":"1}]', '\uFEFF[]', '[{"Id":1}', '[{"Id":1]]', '[[{"Id":1}]]', '["Id",{"Id":1}]', '[{"Id":1}]]']) {
    assert.equal(objectsOfArray(Buffer.from(text)), undefined, text);
  }
});

test('random arrays of objects are found as JSON reads them, and no part of one is an array of objects', { timeout: 10_000 }, () => {
  const draw = seededRandom(11);
  const random = (below: number): number => Math.floor(draw() * below);
  const pick = <T>(values: readonly T[]): T => values[random(values.length)] as T;
  const text = (): string => Array.from({ length: random(6) }, () => pick(['Id', 'Url', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', 'é', '\n', 'a'])).join('');
  const value = (depth: number): unknown => {
    const kind = random(depth > 2 ? 4 : 6);
    if (kind === 0) return random(2) === 0 ? random(1000) : -(random(1000) + 1) / 8;
    if (kind === 1) return text();
    if (kind === 2) return pick([null, true, false]);
    if (kind === 3) return text().slice(0, 3);
    if (kind === 4) return Array.from({ length: random(3) }, () => value(depth + 1));
    return object(depth + 1);
  };
  const object = (depth: number): Record<string, unknown> =>
    Object.fromEntries(Array.from({ length: random(5) }, () => [pick(['Id', 'Url', 'Ids', 'Title', text()]), value(depth)]));
  /** The JSON with white space put around its marks at random, outside its strings. */
  const spaced = (json: string): string => {
    let inString = false;
    let escaped = false;
    return [...json]
      .map((character) => {
        if (inString) [inString, escaped] = [escaped || character !== '"', !escaped && character === '\\'];
        else if (character === '"') inString = true;
        else if (',:[]{}'.includes(character)) return pick([character, ` ${character}`, `${character}\n\t`]);
        return character;
      })
      .join('');
  };
  for (let list = 0; list < 300; list++) {
    const objects = Array.from({ length: random(5) }, () => object(1));
    const written = list % 2 === 0 ? JSON.stringify(objects) : spaced(JSON.stringify(objects));
    const bytes = Buffer.from(written);
    const found = objectsOfArray(bytes);
    assert.ok(found !== undefined, written);
    assert.deepEqual(found.starts.map((start, index) => JSON.parse(bytes.subarray(start, found.ends[index]).toString()) as unknown), objects, written);
    objects.forEach((record, index) => {
      // A name JSON.stringify writes with an escape may be one the walk cannot read.
      const escapedName = Object.keys(record).some((name) => JSON.stringify(name) !== `"${name}"`);
      assert.equal(found.ids[index], Number.isSafeInteger(record['Id']) && !escapedName ? record['Id'] : NaN, written);
    });
    // Cut anywhere before its closing bracket, it is no array.
    for (let end = 0; end <= bytes.lastIndexOf(']'); end++) assert.equal(objectsOfArray(bytes.subarray(0, end)), undefined, written.slice(0, end));
  }
});

test("each object's Id is the whole number its own member says, written plainly", { timeout: 5000 }, () => {
  const idOf = (object: string): number | undefined => objectsOfArray(Buffer.from(`[${object}]`))?.ids[0];
  const cases: [string, number][] = [
    ['{"Id":7}', 7],
    ['{ "Title" : "Id" , "Id" : -12 }', -12],
    ['{"Nested":{"Id":1},"Ids":[{"Id":2}],"Id":3}', 3],
    ['{"Id":9007199254740991}', 9007199254740991],
    ['{"Title":"Id"}', NaN],
    ['{"Id":1.5}', NaN],
    ['{"Id":1e3}', NaN],
    ['{"Id":01}', NaN],
    ['{"Id":"1"}', NaN],
    ['{"Id":null}', NaN],
    ['{"Id":9007199254740993}', NaN],
    ['{"I\\u0064":1}', NaN],
    ['{"Id":1,"Id":2}', NaN],
    ['{"Id":7,"I\\u0064":8}', NaN],
    ['{"Id":7,"Ur\\u006c":"a"}', NaN],
    ['{"Id":7,"Title":"I\\u0064 \\"Id\\":8"}', 7],
    ['{"Url":"Id","Id":2}', 2],
    ['{"Id":1,"Url":{"Href":"a"}}', 1],
  ];
  for (const [object, id] of cases) assert.equal(idOf(object), id, object);
});

test('with no lists before, every session is read, from the lists as they came', { timeout: 5000 }, () => {
  const first = UpstreamSessions.toRead(bytes(sessions), bytes(webSessions), undefined);
  assert.deepEqual(first?.kept, []);
  assert.deepEqual(first.sessions, bytes(sessions));
  assert.deepEqual(first.webSessions, bytes(webSessions));
});

test('a session is read again when its record or its web session changed, appeared or went; the others are kept', { timeout: 5000 }, () => {
  const seats = sessions.map((session) => (session['Id'] === 2 ? { ...session, SeatsAvailable: 9 } : session));
  const webSeats = webSessions.map((session) => (session['Id'] === 2 ? { ...session, SeatsAvailable: 9 } : session));
  const cases: [string, Json[], Json[], number[]][] = [
    ['seats of one', seats, webSeats, [2]],
    ['a Url alone', sessions, webSessions.map((session) => (session['Id'] === 3 ? { ...session, Url: 'https://elsewhere.example/3' } : session)), [3]],
    ['the Url of another session', sessions, webSessions.map((session) => (session['Id'] === 1 ? { ...session, Url: webSessions[1]?.['Url'] } : session)), [1]],
    ['a web session changed but for its Url', sessions, webSessions.map((session) => (session['Id'] === 1 ? { ...session, Title: 'Elsewhere' } : session)), [1]],
    ['a Url dropped', sessions, webSessions.map(({ Url: _url, ...session }) => (session['Id'] === 2 ? session : { Url: _url, ...session })), [2]],
    ['a session gone', sessions.slice(1), webSessions.slice(1), []],
    ['a session new', [...sessions, { Id: 5 }], [...webSessions, { Id: 5, Url: 'u' }], [5]],
    ['off sale on the web', sessions, webSessions.slice(0, 2), [3]],
    ['on sale on the web', sessions, [...webSessions, { Url: 'u', ...sessions[3] }], [4]],
    ['in another order, one changed', seats.toReversed(), webSeats.toReversed(), [2]],
    ['unchanged', sessions, webSessions, []],
  ];
  for (const [name, nextSessions, nextWebSessions, read] of cases) {
    const toRead = after(nextSessions, nextWebSessions);
    assert.ok(toRead !== undefined, name);
    const all = nextSessions.map(({ Id }) => Id as number);
    assert.deepEqual([...toRead.kept].sort(), all.filter((id) => !read.includes(id)).sort(), name);
    if (toRead.kept.length === 0) continue;
    assert.deepEqual(ids(toRead.sessions).sort(), read.filter((id) => all.includes(id)).sort(), name);
    assert.deepEqual(JSON.parse(toRead.webSessions.toString()), nextWebSessions.filter(({ Id }) => read.includes(Id as number)), name);
  }
});

test('lists whose records cannot be told apart are read whole', { timeout: 5000 }, () => {
  const cases: [string, Json[], Json[]][] = [
    ['an Id twice, byte for byte', [...sessions, sessions[0] as Json], webSessions],
    ['an Id twice in the web sessions', sessions, [...webSessions, { ...webSessions[0], Url: 'v' }]],
    ['an Id that is not a whole number', [...sessions, { Id: '5' }], webSessions],
    ['a record without an Id', [...sessions, { Title: 'x' }], webSessions],
  ];
  for (const [name, nextSessions, nextWebSessions] of cases) assert.equal(after(nextSessions, nextWebSessions), undefined, name);
  assert.equal(UpstreamSessions.toRead(Buffer.from('{}'), bytes(webSessions), undefined), undefined);
});

test('the lists of the next sync are compared with those of this one', { timeout: 5000 }, () => {
  const changed = sessions.map((session) => (session['Id'] === 1 ? { ...session, SeatsAvailable: 0 } : session));
  const second = after(changed, webSessions);
  assert.ok(second !== undefined);
  const third = UpstreamSessions.toRead(bytes(changed), bytes(webSessions), second.upstream);
  assert.deepEqual(third?.kept, [1, 2, 3, 4]);
});
