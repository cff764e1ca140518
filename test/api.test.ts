import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { compareCodePoints } from '../src/catalogue/code-points.js';
import { DEMO, method, nonEmpty, parseXmlAnswer, startTestApp, tempDir, varyOf, type TestApp } from './helpers.js';
import { FILM, inXmlOrder, PACKAGE, PACKAGE_FILM, PERSON } from './wire-properties.js';

type Json = Record<string, unknown>;

const DATA_CONTRACT = 'http://schemas.datacontract.org/2004/07/Vista.Online.BackOffice.Api.Models.V1';

let t: TestApp;
let demoFilms: Json[];
let demoPackages: Json[];

before(async () => {
  t = await startTestApp();
  demoFilms = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Json[];
  demoPackages = JSON.parse(await readFile(join(DEMO, 'filmpackages.json'), 'utf8')) as Json[];
});

async function get(url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, headers });
}

describe('GET /v4/film', () => {
  test('lists every film, any status, with all 24 properties in order', async () => {
    const response = await get('/v4/film');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    const films = response.json<Json[]>();
    assert.equal(films.length, demoFilms.length);
    for (const film of nonEmpty(films, 'film')) assert.deepEqual(Object.keys(film), FILM);
    assert.deepEqual(Object.keys((films.find((film) => (film['People'] as Json[]).length > 0)?.['People'] as Json[] | undefined)?.[0] ?? {}), PERSON);
    assert.deepEqual(new Set(films.map((film) => film['Status'])), new Set(['Active', 'Inactive', 'Deleted']));
  });

  test('orders films by DisplaySequence, then Id by code point', async () => {
    const films = (await get('/v4/film')).json<Json[]>();
    const expected = [...films].sort(
      (a, b) => (a['DisplaySequence'] as number) - (b['DisplaySequence'] as number) || compareCodePoints(a['Id'] as string, b['Id'] as string),
    );
    assert.deepEqual(films.map((film) => film['Id']), expected.map((film) => film['Id']));
    const sequences = films.map((film) => film['DisplaySequence'] as number);
    assert.ok(new Set(sequences).size < sequences.length, 'the demo has ties that the Id must break');
  });

  test('returns every film exactly as imported: null and "" apart, non-ASCII intact', async () => {
    const films = (await get('/v4/film')).json<Json[]>();
    const byId = new Map(films.map((film) => [film['Id'], film]));
    for (const film of nonEmpty(demoFilms, 'demo film')) assert.deepEqual(byId.get(film['Id']), film);
    const all = JSON.stringify(films);
    assert.match(all, /"Synopsis":null/);
    assert.match(all, /"Synopsis":""/);
    assert.match(all, /"People":\[\]/);
  });
});

describe('GET /v4/film/{id}', () => {
  test('answers each film as it appears in the list', async () => {
    const films = (await get('/v4/film')).json<Json[]>();
    for (const film of nonEmpty(films, 'film')) {
      const response = await get(`/v4/film/${encodeURIComponent(film['Id'] as string)}`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), film);
    }
  });

  test('answers 404 with a problem naming the id', async () => {
    const response = await get('/v4/film/NOPE');
    assert.equal(response.statusCode, 404);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(response.json(), { type: 'about:blank', title: 'Not Found', status: 404, detail: "No film has the id 'NOPE'." });
  });

  test('matches ids exactly, after percent-decoding', async () => {
    assert.equal((await get('/v4/film/ho00000101')).statusCode, 404, 'ids are case-sensitive');
    assert.equal((await get('/v4/film/%48O00000101')).statusCode, 200, '%48 is H');
    for (const url of ['/v4/film/%zz', '/v4/film/%', `/v4/film/${'x'.repeat(5000)}`]) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url.slice(0, 30));
      assert.equal(response.json<Json>()['status'], 404);
    }
  });

  test('an id whose escapes cannot be decoded names nothing, not the record of that text', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'films.json'), JSON.stringify([{ ...demoFilms[0], Id: '%FF' }, { ...demoFilms[1], Id: 'x%zz y' }]));
    const odd = await startTestApp([join(dir, 'films.json')]);
    for (const [url, status] of [['/v4/film/%FF', 404], ['/v4/film/%25FF', 200], ['/v4/film/x%zz%20y', 404], ['/v4/film/x%25zz%20y', 200]] as const) {
      assert.equal((await odd.app.inject({ method: 'GET', url })).statusCode, status, url);
    }
  });
});

describe('GET /v1/filmpackage and /v1/filmpackage/{id}', () => {
  test('lists every package by Id, with films by Order and six-decimal SplitPercent', async () => {
    const response = await get('/v1/filmpackage');
    assert.equal(response.statusCode, 200);
    const packages = response.json<Json[]>();
    assert.equal(packages.length, demoPackages.length);
    assert.deepEqual(packages.map((p) => p['Id']), demoPackages.map((p) => p['Id'] as number).sort((a, b) => a - b));
    for (const filmPackage of nonEmpty(packages, 'package')) {
      assert.deepEqual(Object.keys(filmPackage), PACKAGE);
      const films = filmPackage['Films'] as Json[];
      assert.deepEqual(films.map((film) => film['Order']), films.map((film) => film['Order'] as number).sort((a, b) => a - b));
      for (const film of films) assert.deepEqual(Object.keys(film), PACKAGE_FILM);
    }
    assert.ok(packages.some((filmPackage) => (filmPackage['Films'] as Json[]).length > 1), 'a package of several films shows their order');
    assert.match(response.body, /"SplitPercent":33\.333333,/);
    assert.match(response.body, /"SplitPercent":33\.333334,/);
    assert.match(response.body, /"SplitPercent":50\.000000,/);
    assert.doesNotMatch(response.body, /"SplitPercent":\d+(\.\d{1,5})?[,}]/, 'every SplitPercent has six decimals');
    assert.match(response.body, /"Films":\[\]/);
  });

  test('answers one package, up to the largest int id', async () => {
    for (const id of [1, 2, 2147483647]) {
      const response = await get(`/v1/filmpackage/${id}`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.json<Json>()['Id'], id);
    }
    assert.equal((await get('/v1/filmpackage/002')).json<Json>()['Id'], 2, 'leading zeros, as .NET binds an int');
  });

  test('answers 404 for an unknown or malformed package id, never 400 or 500', async () => {
    for (const id of ['3', 'abc', '-1', '1.5', '0', '99999999999', '2147483648', '1e3', '%20']) {
      const response = await get(`/v1/filmpackage/${id}`);
      assert.equal(response.statusCode, 404, id);
      assert.equal(response.json<Json>()['detail'], `No film package has the id '${decodeURIComponent(id)}'.`);
    }
    const long = await get(`/v1/filmpackage/${'9'.repeat(2000)}`);
    assert.equal(long.statusCode, 404);
    assert.equal(long.json<Json>()['detail'], `No film package has the id '${'9'.repeat(100)}…'.`, 'a long id is quoted cut short');
    const badEncoding = await get('/v1/filmpackage/%zz');
    assert.equal(badEncoding.statusCode, 404, 'an escape that cannot be decoded names nothing');
    assert.equal(badEncoding.json<Json>()['detail'], "Nothing is found at '/v1/filmpackage/%zz'.");
    assert.equal(badEncoding.headers['x-content-type-options'], 'nosniff', 'its answer goes through every hook');
  });
});

/** The root element of the XML answer at `url`. */
async function xmlElement(url: string): Promise<Element> {
  const root = new DOMParser().parseFromString((await get(url, { accept: 'text/xml' })).body, 'text/xml').documentElement;
  assert.ok(root !== null, url);
  return root;
}

/** The names of an element's children, each once, in the order they come. */
function distinctChildren(element: Element): string[] {
  const names: string[] = [];
  for (let node = element.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE && !names.includes((node as Element).localName ?? '')) names.push((node as Element).localName ?? '');
  }
  return names;
}

describe('XML', () => {
  const urls = async (): Promise<string[]> => {
    const films = (await get('/v4/film')).json<Json[]>();
    const packages = (await get('/v1/filmpackage')).json<Json[]>();
    return [
      '/v4/film',
      '/v1/filmpackage',
      ...films.map((film) => `/v4/film/${encodeURIComponent(film['Id'] as string)}`),
      ...packages.map((p) => `/v1/filmpackage/${p['Id'] as number}`),
    ];
  };

  test('every answer read back by a real XML parser equals the JSON answer, field by field', async () => {
    for (const url of nonEmpty(await urls(), 'URL')) {
      const xml = await get(url, { accept: 'application/xml' });
      assert.equal(xml.statusCode, 200);
      assert.equal(xml.headers['content-type'], 'application/xml; charset=utf-8');
      const parsed = parseXmlAnswer(xml.body);
      assert.equal(parsed.namespace, DATA_CONTRACT, url);
      assert.deepEqual(parsed.value, (await get(url)).json(), url);
    }
  });

  test('roots, namespaces and DataContract element order', async () => {
    const list = (await get('/v4/film', { accept: 'application/xml' })).body;
    assert.ok(list.startsWith(`<ArrayOfFilm xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="${DATA_CONTRACT}"><Film>`));
    assert.match(list, /<FilmPosterThumbnailUrl>[^<]*<\/FilmPosterThumbnailUrl><FilmPosterUrl>/);
    assert.equal(parseXmlAnswer((await get('/v1/filmpackage', { accept: 'text/xml' })).body).root, 'ArrayOfFilmPackage');
    assert.equal(parseXmlAnswer((await get('/v1/filmpackage/1', { accept: 'text/xml' })).body).root, 'FilmPackage');
    assert.equal(parseXmlAnswer((await get('/v4/film/HO00000101', { accept: 'text/xml' })).body).root, 'Film');
    // Each record's elements, read off the answers: every property, in ordinal order.
    const film = await xmlElement('/v4/film/HO00000101');
    assert.deepEqual(distinctChildren(film), inXmlOrder(FILM));
    const [person] = film.getElementsByTagName('People');
    assert.ok(person !== undefined, 'HO00000101 has people');
    assert.deepEqual(distinctChildren(person), inXmlOrder(PERSON));
    const filmPackage = await xmlElement('/v1/filmpackage/1');
    assert.deepEqual(distinctChildren(filmPackage), inXmlOrder(PACKAGE));
    const [packageFilm] = filmPackage.getElementsByTagName('FilmPackageFilm');
    assert.ok(packageFilm !== undefined, 'package 1 has films');
    assert.deepEqual(distinctChildren(packageFilm), inXmlOrder(PACKAGE_FILM));
    assert.deepEqual(inXmlOrder(PACKAGE), ['Films', 'Id', 'Status', 'Title'], 'ordinal order, as DataContract writes it');
  });

  test('null is i:nil, "" an empty element, nobody no People element, no films <Films/>', async () => {
    const films = (await get('/v4/film')).json<Json[]>();
    const withNull = films.find((film) => film['Synopsis'] === null) as Json;
    const withEmpty = films.find((film) => film['Synopsis'] === '') as Json;
    const withNobody = films.find((film) => (film['People'] as unknown[]).length === 0) as Json;
    const xmlOf = async (film: Json) => (await get(`/v4/film/${encodeURIComponent(film['Id'] as string)}?format=xml`)).body;
    assert.match(await xmlOf(withNull), /<Synopsis i:nil="true"\/>/);
    assert.match(await xmlOf(withEmpty), /<Synopsis\/>/);
    assert.doesNotMatch(await xmlOf(withNobody), /<People/);
    const packages = (await get('/v1/filmpackage')).json<Json[]>();
    const empty = packages.find((p) => (p['Films'] as unknown[]).length === 0) as Json;
    assert.match((await get(`/v1/filmpackage/${empty['Id'] as number}?format=xml`)).body, /<Films\/>/);
  });

  test('special characters are escaped and CR survives as &#xD;', async () => {
    const body = (await get('/v4/film?format=xml')).body;
    assert.match(body, /&amp;/);
    assert.match(body, /&lt;/);
    assert.match(body, /&#xD;\n/);
    assert.doesNotMatch(body, /\r/);
    const json = (await get('/v4/film')).json<Json[]>();
    assert.ok(json.some((film) => String(film['Synopsis']).includes('\r\n')), 'the demo has a CRLF');
  });
});

describe('choosing JSON or XML', () => {
  test('Accept is negotiated with q-values; anything else gets JSON, never 406', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'application/json'],
      [{ accept: '*/*' }, 'application/json'],
      [{ accept: 'text/plain' }, 'application/json'],
      [{ accept: 'text/html,application/xhtml+xml' }, 'application/json'],
      [{ accept: 'image/png' }, 'application/json'],
      [{ accept: 'text/json' }, 'text/json'],
      [{ accept: 'text/xml' }, 'text/xml'],
      [{ accept: 'application/json;q=0.4, application/xml;q=0.8' }, 'application/xml'],
      [{ accept: 'application/xml;q=0.4, application/json' }, 'application/json'],
      [{ accept: ';;;,/,q=' }, 'application/json'],
    ];
    for (const [headers, type] of cases) {
      const response = await get('/v1/filmpackage/1', headers);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], `${type}; charset=utf-8`, JSON.stringify(headers));
      assert.equal(varyOf(response), 'Accept, Authorization, VeeziAccessToken');
    }
  });

  test('?format= overrides Accept; unknown parameters are ignored', async () => {
    assert.equal((await get('/v4/film?format=xml', { accept: 'application/json' })).headers['content-type'], 'application/xml; charset=utf-8');
    assert.equal((await get('/v4/film?format=json', { accept: 'application/xml' })).headers['content-type'], 'application/json; charset=utf-8');
    assert.equal((await get('/v4/film?format=yaml&page=2')).headers['content-type'], 'application/json; charset=utf-8');
    // Given twice alike it counts; given twice otherwise it says nothing, and Accept decides.
    assert.equal((await get('/v4/film?format=xml&format=xml')).headers['content-type'], 'application/xml; charset=utf-8');
    assert.equal((await get('/v4/film?format=xml&format=json', { accept: 'text/xml' })).headers['content-type'], 'text/xml; charset=utf-8');
    // Nor does a URL whose escapes cannot be decoded, or whose id is longer than any, lose its query.
    const longId = `/v4/film/${'x'.repeat(70_000)}?format=xml`;
    for (const [url, accept, type] of [['/v4/film/%ZZ?format=xml', 'application/json', 'xml'], ['/v4/film/%E9?format=json', 'application/xml', 'json'], [longId, 'application/json', 'xml']] as const) {
      const response = await get(url, { accept });
      assert.equal(response.statusCode, 404, url.slice(0, 40));
      assert.equal(response.headers['content-type'], `application/problem+${type}; charset=utf-8`, url.slice(0, 40));
    }
  });

  test('problems follow the negotiated format', async () => {
    const response = await get('/v4/film/NOPE', { accept: 'application/xml' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.headers['content-type'], 'application/problem+xml; charset=utf-8');
    assert.equal(
      response.body,
      '<problem xmlns="urn:ietf:rfc:7807"><type>about:blank</type><title>Not Found</title><status>404</status><detail>No film has the id &apos;NOPE&apos;.</detail></problem>'.replace(/&apos;/g, "'"),
    );
    const odd = await get('/v4/film/%01%26', { accept: 'application/xml' });
    assert.equal(odd.statusCode, 404);
    assert.match(odd.body, /No film has the id '\uFFFD&amp;'\./, 'a control character cannot reach the XML');
    const oddJson = await get('/v4/film/%01%22%5C%C3%A9');
    assert.equal(oddJson.statusCode, 404);
    assert.equal(Number(oddJson.headers['content-length']), Buffer.byteLength(oddJson.body), 'the length counts bytes, not characters');
    assert.equal((oddJson.json() as { detail: string }).detail, `No film has the id '\u0001"\\é'.`);
  });
});

describe('paths, methods and HEAD', () => {
  test('fixed segments match case-insensitively, with one trailing slash', async () => {
    for (const url of ['/V4/FILM', '/v4/Film/', '/V1/FilmPackage', '/v1/filmpackage/1/', '/V4/film/HO00000101']) {
      assert.equal((await get(url)).statusCode, 200, url);
    }
  });

  test('unknown paths answer 404 problems', async () => {
    for (const url of ['/', '/v3/film', '/v4/films', '/v4/film/a/b', '/v4//film']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    }
  });

  test('other methods answer 405 with Allow: GET, HEAD, whatever the body', async () => {
    for (const name of ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND', 'SEARCH', 'PURGE']) {
      for (const url of ['/v4/film', '/v4/film/HO00000101', '/v1/filmpackage', '/v1/filmpackage/1']) {
        const response = await t.app.inject({ method: method(name), url, payload: '<not json', headers: { 'content-type': 'application/x-strange' } });
        assert.equal(response.statusCode, 405, `${method} ${url}`);
        assert.equal(response.headers['allow'], 'GET, HEAD');
        assert.equal(response.json<Json>()['status'], 405);
      }
    }
  });

  test('HEAD answers the same status and headers as GET, with no body', async () => {
    for (const url of ['/v4/film', '/v4/film/HO00000101', '/v1/filmpackage/2?format=xml', '/v4/film/NOPE']) {
      const getResponse = await get(url);
      const head = await t.app.inject({ method: 'HEAD', url });
      assert.equal(head.statusCode, getResponse.statusCode, url);
      assert.equal(head.body, '');
      for (const name of ['content-type', 'content-length', 'etag', 'vary', 'cache-control']) {
        assert.equal(head.headers[name], getResponse.headers[name], `${url} ${name}`);
      }
    }
  });
});

describe('caching', () => {
  test('a strong ETag per representation; If-None-Match answers 304 without a body', async () => {
    const json = await get('/v4/film');
    const xml = await get('/v4/film', { accept: 'application/xml' });
    assert.match(String(json.headers['etag']), /^"[\w-]+"$/);
    assert.notEqual(json.headers['etag'], xml.headers['etag']);
    assert.equal(json.headers['cache-control'], 'no-cache');
    const revalidated = await get('/v4/film', { 'if-none-match': String(json.headers['etag']) });
    assert.equal(revalidated.statusCode, 304);
    assert.equal(revalidated.body, '');
    assert.equal(revalidated.headers['etag'], json.headers['etag']);
    assert.equal((await get('/v4/film', { 'if-none-match': `"other", W/${String(json.headers['etag'])}` })).statusCode, 304);
    assert.equal((await get('/v4/film', { 'if-none-match': '"other"' })).statusCode, 200);
    assert.equal((await get('/v4/film', { accept: 'application/xml', 'if-none-match': String(json.headers['etag']) })).statusCode, 200);
  });
});

describe('compression', () => {
  test('gzip and brotli bodies decode to the identity bytes and carry their own ETags', async () => {
    for (const url of ['/v4/film', '/v4/film?format=xml', '/v1/filmpackage', '/v4/film/HO00000101']) {
      const identity = await get(url);
      assert.equal(identity.headers['content-encoding'], undefined);
      assert.equal(varyOf(identity), 'Accept, Accept-Encoding, Authorization, VeeziAccessToken');
      const tags = new Set([identity.headers['etag']]);
      for (const [coding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
        const compressed = await get(url, { 'accept-encoding': coding });
        assert.equal(compressed.headers['content-encoding'], coding, `${url} ${coding}`);
        assert.equal(varyOf(compressed), 'Accept, Accept-Encoding, Authorization, VeeziAccessToken');
        assert.ok(compressed.rawPayload.length < identity.rawPayload.length);
        assert.deepEqual(decode(compressed.rawPayload), identity.rawPayload);
        assert.equal(Number(compressed.headers['content-length']), compressed.rawPayload.length);
        tags.add(compressed.headers['etag']);
        const revalidated = await get(url, { 'accept-encoding': coding, 'if-none-match': String(compressed.headers['etag']) });
        assert.equal(revalidated.statusCode, 304);
        const heldIdentity = await get(url, { 'accept-encoding': coding, 'if-none-match': String(identity.headers['etag']) });
        assert.equal(heldIdentity.statusCode, 304, `${url} ${coding}: a client holding the identity body keeps it`);
        assert.equal(heldIdentity.headers['etag'], identity.headers['etag']);
        assert.equal(heldIdentity.headers['content-encoding'], undefined);
        const head = await t.app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': coding } });
        assert.equal(head.headers['content-length'], compressed.headers['content-length']);
        assert.equal(head.headers['content-encoding'], coding);
      }
      assert.equal(tags.size, 3, `${url}: identity, gzip and br have different ETags`);
    }
  });

  test('brotli is preferred, q=0 refuses a coding, and tiny bodies are sent as they are', async () => {
    assert.equal((await get('/v4/film', { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding'], 'br');
    assert.equal((await get('/v4/film', { 'accept-encoding': 'br;q=0, gzip' })).headers['content-encoding'], 'gzip');
    assert.equal((await get('/v4/film', { 'accept-encoding': 'identity' })).headers['content-encoding'], undefined);
    const packages = (await get('/v1/filmpackage')).json<Json[]>();
    const empty = packages.find((p) => (p['Films'] as unknown[]).length === 0) as Json;
    const tiny = await get(`/v1/filmpackage/${empty['Id'] as number}`, { 'accept-encoding': 'gzip, br' });
    assert.equal(tiny.statusCode, 200);
    assert.equal(tiny.headers['content-encoding'], undefined);
    assert.equal(varyOf(tiny), 'Accept, Authorization, VeeziAccessToken');
  });
});

describe('ids that need encoding', () => {
  test('a film id with a slash, a space, a quote and non-ASCII is reachable percent-encoded', async () => {
    const dir = await tempDir();
    const film = { ...demoFilms[0], Id: 'a/b c\'é🎬' };
    await writeFile(join(dir, 'odd.json'), JSON.stringify(film));
    const odd = await startTestApp([join(dir, 'odd.json')]);
    const response = await odd.app.inject({ method: 'GET', url: `/v4/film/${encodeURIComponent(film.Id)}` });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json<Json>()['Id'], film.Id);
  });
});
