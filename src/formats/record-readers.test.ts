import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readRecords, type ReadRecord, type RecordKind } from './record-readers.js';

/** The records of `content`, read in chunks of `chunkSize` bytes as a file stream would give them. */
async function read(content: string | Buffer, expected?: RecordKind, chunkSize = 7): Promise<ReadRecord[]> {
  const bytes = Buffer.from(content);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let at = 0; at < bytes.length; at += chunkSize) yield bytes.subarray(at, at + chunkSize);
  }
  const records: ReadRecord[] = [];
  for await (const record of readRecords(chunks(), 'in', expected)) records.push(record);
  return records;
}

const kinds = (records: readonly ReadRecord[]): string[] => records.map((r) => (r.kind === 'misfit' ? `misfit: ${r.reason}` : r.kind));

test('a JSON record is known by its properties, then by its file, then by its Id', async () => {
  assert.deepEqual(kinds(await read('[{"Id":1,"Format":"2D Film"}]')), ['film']);
  assert.deepEqual(kinds(await read('[{"Id":"A","Films":[]}]')), ['package']);
  assert.deepEqual(kinds(await read('[{"Id":"A","Format":"2D Film"},{"Id":2,"Title":"T"}]')), ['film', 'film']);
  assert.deepEqual(kinds(await read('[{"Id":2,"Title":"T"},{"Id":"B","Title":"T"}]')), ['package', 'package']);
  assert.deepEqual(kinds(await read('{"Id":2,"Title":"T"}', 'film')), ['film']);
  assert.deepEqual(kinds(await read('[{"Id":2,"Films":[]}]', 'film')), ['misfit: is a film package in a list of films']);
  assert.deepEqual(kinds(await read('[{"Rating":"PG","Films":[]},{"Other":1},7]')), [
    'misfit: fits no resource: it has properties of a film (Rating) and of a film package (Films)',
    'misfit: fits no resource: it has none of the properties of a film, a film package, a screen, an attribute, a site or a session',
    'misfit: must be an object',
  ]);
});

test('every kind of record is known by its own properties, and one of another kind than its file is a misfit', async () => {
  assert.deepEqual(kinds(await read('[{"Id":1,"ScreenNumber":"1"},{"Id":"0000000001","FontColor":"#ffffff"},{"Name":"N","TimeZoneIdentifier":"UTC"}]')), [
    'screen',
    'misfit: is an attribute in a list of screens',
    'misfit: is a site in a list of screens',
  ]);
  assert.deepEqual(kinds(await read('[{"Id":1,"Seating":"Allocated","Url":null}]')), ['session']);
  assert.deepEqual(kinds(await read('[{"Id":1,"Seating":"Allocated","Rating":"PG"}]')), [
    'misfit: fits no resource: it has properties of a session (Seating) and of a film (Rating)',
  ]);
  // Name is a screen's and a site's: in a list of films it is neither.
  assert.deepEqual(kinds(await read('[{"Name":"N"}]', 'film')), ['misfit: is a screen or a site in a list of films']);
  assert.deepEqual(kinds(await read('[{"Title":"T","Name":"N"}]')), ['misfit: fits no resource: no resource has all of its properties']);
  await assert.rejects(read('<ArrayOfScreen/>', 'film'), /<ArrayOfScreen> holds screens, where films are expected/);
});

test('an XML root names the kind, and an element that is no record of it is a misfit', async () => {
  assert.deepEqual(kinds(await read('<ArrayOfFilmPackage><FilmPackage><Id>1</Id></FilmPackage><Film/></ArrayOfFilmPackage>')), [
    'package',
    'misfit: fits no resource: <ArrayOfFilmPackage> lists <FilmPackage> elements',
  ]);
  await assert.rejects(read('<Film/>', 'package'), /in: <Film> holds films, where film packages are expected/);
});

test('nesting past 32 levels stops the reader', async () => {
  await assert.rejects(read(`[${'['.repeat(32)}${']'.repeat(32)}]`), /in: record 1: nested deeper than 32 levels/);
  assert.equal((await read(`[${'['.repeat(31)}${']'.repeat(31)}]`)).length, 1);
  await assert.rejects(read(`<Film>\n${'<a>'.repeat(40)}`), /in: record 1, line 2: elements nested deeper than 32 levels/);
});

test('a __proto__ member is not kept, and lends the record nothing', async () => {
  for (const chunkSize of [7, 1_000_000]) {
    const [record] = await read('[{"Id":1,"Seating":"Allocated","__proto__":{"Url":"x","Seating":"Open"}}]', 'session', chunkSize);
    assert.equal(record?.kind, 'session');
    assert.equal(Object.getPrototypeOf(record.raw), Object.prototype);
    assert.equal(record.raw['Url'], undefined);
    assert.equal(record.raw['Seating'], 'Allocated');
    assert.equal('__proto__' in record.raw && Object.hasOwn(record.raw, '__proto__'), false);
  }
});

test('a value past 1,048,576 characters stops the reader, in one piece or across chunks', async () => {
  const long = 'x'.repeat(1_048_577);
  await assert.rejects(read(`[{"Synopsis":"${long}"}]`, undefined, 65_536), /in: record 1: a value longer than 1,048,576 characters/);
  await assert.rejects(read(`<Film><Synopsis>${long}</Synopsis></Film>`, undefined, 65_536), /in: record 1, line 1: a text, comment or tag longer than 1,048,576 characters/);
  assert.equal((await read(`[{"Synopsis":"${long.slice(1)}"}]`, undefined, 65_536)).length, 1);
});

test('UTF-16 XML is decoded; another declared encoding, bad UTF-8 or UTF-16 JSON is refused', async () => {
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<Film><Title>Noël</Title></Film>', 'utf16le')]);
  assert.deepEqual((await read(utf16)).map((r) => r.raw), [{ Title: 'Noël', People: [] }]);
  await assert.rejects(read(Buffer.from('<?xml version="1.0" encoding="windows-1252"?><Film/>')), /in: is encoded in windows-1252, as its XML declaration says/);
  await assert.rejects(read(Buffer.from('<Film><Title>No\xebl</Title></Film>', 'latin1')), /in: line 1: not valid UTF-8 \(on this line or after it\)/);
  await assert.rejects(read(Buffer.from([...Buffer.from('[{"Title":"a'), 0xc3])), /in: record 1: not valid UTF-8/);
  await assert.rejects(read(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('[]', 'utf16le').swap16()])), /in: is encoded in UTF-16BE/);
});

test('an input held whole is read as the streaming reader reads it in pieces: the same records, and the same refusals', async () => {
  const outcome = async (content: string | Buffer, chunkSize: number): Promise<ReadRecord[] | string> => read(content, undefined, chunkSize).catch((error: unknown) => (error as Error).message);
  const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
  const inputs: (string | Buffer)[] = [
    '[{"Id":"A","Format":"2D Film","Duration":120,"Price":1.50,"Big":123456789012345678901234567890,"E":1e5,"Neg":-0}]',
    '[{"Id":"A","Format":"2D Film","Duration":120,"Price":1.5,"Neg":-3,"Big":100000000000000000000,"Text":"1.50 \\" -0"}]',
    '{"Id":2,"Title":"T"}',
    // Strings ending in escaped backslashes, or holding an escaped quote after one, before a number not written plainly.
    '[{"Id":"A\\\\","Format":"2D Film","Duration":1.50}]',
    '[{"Id":"B\\\\\\"C","Format":"2D Film","Duration":1.50}]',
    '[{"Id":"D\\\\\\\\","Format":"2D Film","Duration":2}]',
    '[{"Rating":"PG","Films":[]},{"Other":1},7,"x",null]',
    '[{"Id":1,"Seating":"Allocated","__proto__":{"Url":"x"}}]',
    '[{"Id":1,"Seating":"Allocated","\\u005f_proto__":1}]',
    `[{"Id":1,"Seating":"Allocated","Deep":${nested(30)}}]`,
    `[{"Id":1,"Seating":"Allocated","Deep":${nested(31)}}]`,
    '[{"Id":1,"Seating":"Allocated","Text":"\\ud800 é \\n"},{"Id":1,"Id":2,"Seating":"Open"}]',
    '\ufeff[{"Id":1,"Seating":"Allocated"}]',
    '[] [{"Id":1,"Seating":"Allocated"}]',
    '[{"Id":1}] x',
    '[{"Id":1,}]',
    '7',
    'null',
    Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d]),
  ];
  // Blank space after each, so that in pieces the reader has not seen its end when it begins.
  const padded = (input: string | Buffer): Buffer => Buffer.concat([Buffer.from(input), Buffer.from(' '.repeat(600))]);
  for (const input of inputs.map(padded)) assert.deepEqual(await outcome(input, Number.MAX_SAFE_INTEGER), await outcome(input, 7), String(input));
});

test('blanks before the first record are passed over however long, in one chunk or many', async () => {
  const blanks = `${' '.repeat(4095)}\r\n\t${' '.repeat(5000)}`;
  for (const chunkSize of [7, 4096, 1_000_000]) {
    assert.deepEqual(kinds(await read(`${blanks}[{"Id":1,"Seating":"Allocated","Url":null}]`, undefined, chunkSize)), ['session']);
    assert.deepEqual(kinds(await read(`${blanks}<ArrayOfScreen><Screen><Id>1</Id><ScreenNumber>1</ScreenNumber></Screen></ArrayOfScreen>`, undefined, chunkSize)), ['screen']);
    await assert.rejects(read(blanks, undefined, chunkSize), /the file is empty/);
  }
});
