import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import ICAL from 'ical.js';
import {
  ATTRIBUTE_SHAPE,
  FILM_SHAPE,
  FILM_V1_SHAPE,
  PACKAGE_SHAPE,
  SCREEN_SHAPE,
  SESSION_SHAPE,
  SITE_SHAPE,
  WEB_SESSION_SHAPE,
  type WireShape,
} from '../src/formats/wire-shape.js';
import { issueToken } from '../src/access/manage-tokens.js';
import { buildApp } from '../src/http/app.js';
import { DEMO_FILES, demoRecords, nonEmpty, parseXmlAnswer, sessionAt, startTestApp, tempDir, waitFor, type TestApp } from './helpers.js';
import { ATTRIBUTE, FILM, FILM_V1, PACKAGE, PACKAGE_FILM, PERSON, SCREEN, SESSION, SITE, SITE_SCREEN, WEB_SESSION } from './wire-properties.js';

type Json = Record<string, unknown>;
interface MediaType { readonly schema: Json; readonly example?: unknown; readonly examples?: Readonly<Record<string, { readonly $ref: string }>> }
interface Example { readonly summary: string; readonly value: unknown }
interface Response { readonly content?: Readonly<Record<string, MediaType>>; readonly headers?: Json }
interface Operation { readonly operationId: string; readonly tags: string[]; readonly security?: Json[]; readonly parameters?: Json[]; readonly responses: Readonly<Record<string, Response>> }
interface Document {
  readonly openapi: string;
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, Json>>;
    readonly securitySchemes: Readonly<Record<string, Json>>;
    readonly examples: Readonly<Record<string, Example>>;
  };
}

const DATA_CONTRACT = 'http://schemas.datacontract.org/2004/07/Vista.Online.BackOffice.Api.Models.V1';
const CATALOGUE_OPERATIONS = {
  '/v4/film': 'listFilms',
  '/v4/film/{id}': 'getFilm',
  '/v1/film': 'listFilmsV1',
  '/v1/film/{id}': 'getFilmV1',
  '/v1/filmpackage': 'listFilmPackages',
  '/v1/filmpackage/{id}': 'getFilmPackage',
  '/v1/screen': 'listScreens',
  '/v1/screen/{id}': 'getScreen',
  '/v1/attribute': 'listAttributes',
  '/v1/attribute/{id}': 'getAttribute',
  '/v1/session': 'listSessions',
  '/v1/session/{id}': 'getSession',
  '/v1/websession': 'listWebSessions',
  '/v1/websession/{id}': 'getWebSession',
  '/v1/site': 'getSite',
};
const PROGRAMME_OPERATIONS = { '/programme': 'getProgramme', '/programme.ics': 'getProgrammeCalendar', '/programme.jsonld': 'getProgrammeLinkedData', '/programme/coming-soon': 'getComingSoon', '/whats-on': 'getProgrammePage' };
const PROGRAMME_MEDIA_TYPES = { '/programme': 'application/json', '/programme.ics': 'text/calendar', '/programme.jsonld': 'application/ld+json', '/whats-on': 'text/html' };
/** The record each catalogue path answers, and its XML root. */
const ANSWERS: Readonly<Record<keyof typeof CATALOGUE_OPERATIONS, readonly [root: string, shape: WireShape<unknown>]>> = {
  '/v4/film': ['ArrayOfFilm', FILM_SHAPE as WireShape<unknown>],
  '/v4/film/{id}': ['Film', FILM_SHAPE as WireShape<unknown>],
  '/v1/film': ['ArrayOfFilm', FILM_V1_SHAPE as WireShape<unknown>],
  '/v1/film/{id}': ['Film', FILM_V1_SHAPE as WireShape<unknown>],
  '/v1/filmpackage': ['ArrayOfFilmPackage', PACKAGE_SHAPE as WireShape<unknown>],
  '/v1/filmpackage/{id}': ['FilmPackage', PACKAGE_SHAPE as WireShape<unknown>],
  '/v1/screen': ['ArrayOfScreen', SCREEN_SHAPE as WireShape<unknown>],
  '/v1/screen/{id}': ['Screen', SCREEN_SHAPE as WireShape<unknown>],
  '/v1/attribute': ['ArrayOfAttribute', ATTRIBUTE_SHAPE as WireShape<unknown>],
  '/v1/attribute/{id}': ['Attribute', ATTRIBUTE_SHAPE as WireShape<unknown>],
  '/v1/session': ['ArrayOfSession', SESSION_SHAPE as WireShape<unknown>],
  '/v1/session/{id}': ['Session', SESSION_SHAPE as WireShape<unknown>],
  '/v1/websession': ['ArrayOfSession', WEB_SESSION_SHAPE as WireShape<unknown>],
  '/v1/websession/{id}': ['Session', WEB_SESSION_SHAPE as WireShape<unknown>],
  '/v1/site': ['Site', SITE_SHAPE as WireShape<unknown>],
};
/** Where an unknown record answers 404. */
const answersNotFound = (path: string): boolean => path.endsWith('{id}') || path === '/v1/site';
const OPERATIONS_ENDPOINTS = ['/healthz', '/readyz', '/metrics', '/openapi.json'];
const REPRESENTATIONS = ['application/json', 'text/json', 'application/xml', 'text/xml'];
const PROBLEMS = ['application/problem+json', 'application/problem+xml'];

let t: TestApp;
let doc: Document;

before(async () => {
  t = await startTestApp(DEMO_FILES);
  const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
  doc = response.json<Document>();
});

function operation(path: string): Operation {
  const found = doc.paths[path]?.['get'];
  assert.ok(found, `GET ${path} is in the document`);
  return found;
}

describe('/openapi.json', () => {
  test('is cached as every answer is: a strong ETag, 304 to a client that has it, compressed once asked for so', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const etag = first.headers['etag'];
    assert.match(String(etag), /^"[\w-]+"$/);
    assert.equal(first.headers['cache-control'], 'no-cache');
    assert.equal((await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'if-none-match': String(etag) } })).statusCode, 304);
    // A large answer is compressed in the background from its second compressed request.
    const compressed = async () => t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    await waitFor(async () => (await compressed()).headers['content-encoding'] === 'gzip', 10_000);
    const gzipped = await compressed();
    assert.equal(gunzipSync(gzipped.rawPayload).toString(), first.body);
    assert.equal(gzipped.headers['etag'], `${String(etag).slice(0, -1)}-gzip"`);
  });

  test('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Json);
    assert.equal(validator.version, '3.1');
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  });

  test('lists every catalogue operation and every operations endpoint, GET only', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), [...Object.keys(CATALOGUE_OPERATIONS), ...Object.keys(PROGRAMME_OPERATIONS), ...OPERATIONS_ENDPOINTS, '/images/{source}/{width}/{signature}'].sort());
    for (const [path, id] of Object.entries({ ...CATALOGUE_OPERATIONS, ...PROGRAMME_OPERATIONS })) assert.equal(operation(path).operationId, id);
    for (const path of OPERATIONS_ENDPOINTS) assert.deepEqual(operation(path).tags, ['Operations']);
    for (const item of Object.values(doc.paths)) assert.deepEqual(Object.keys(item), ['get']);
  });

  test('describes both formats, the problems and the tokens of each catalogue operation', () => {
    for (const path of Object.keys(CATALOGUE_OPERATIONS)) {
      const { responses, security, parameters } = operation(path);
      assert.deepEqual(Object.keys(responses['200']?.content ?? {}), REPRESENTATIONS, path);
      assert.deepEqual(Object.keys(responses['200']?.headers ?? {}), ['ETag', 'Cache-Control', 'Vary', 'Surrogate-Key', 'Cache-Tag'], path);
      assert.equal(responses['304']?.content, undefined, `${path}: 304 has no body`);
      for (const status of answersNotFound(path) ? ['401', '404', '429'] : ['401', '429']) {
        assert.deepEqual(Object.keys(responses[status]?.content ?? {}), PROBLEMS, `${path} ${status}`);
      }
      assert.equal(responses['404'] === undefined, !answersNotFound(path), `${path}: 404 only where a record can be missing`);
      assert.deepEqual(security, [{ VeeziAccessToken: [] }, { BearerToken: [] }]);
      assert.ok(parameters?.some((parameter) => parameter['name'] === 'format' && parameter['in'] === 'query'), path);
    }
    for (const path of OPERATIONS_ENDPOINTS) assert.equal(operation(path).security, undefined, `${path} needs no token`);
    assert.deepEqual(doc.components.securitySchemes['VeeziAccessToken'], {
      type: 'apiKey',
      in: 'header',
      name: 'VeeziAccessToken',
      description: doc.components.securitySchemes['VeeziAccessToken']?.['description'],
    });
    assert.equal(doc.components.securitySchemes['BearerToken']?.['scheme'], 'bearer');
  });

  test('describes the programme: its filters, formats, problems, and the publishable key in the query string', () => {
    for (const [path, mediaType] of Object.entries(PROGRAMME_MEDIA_TYPES)) {
      const { responses, security, parameters, tags } = operation(path);
      assert.deepEqual(tags, ['Programme']);
      assert.deepEqual(security, [{ ProgrammeKey: [] }, { VeeziAccessToken: [] }, { BearerToken: [] }], path);
      const filters = ['from', 'days', 'film', 'screen', 'attribute', 'access', 'sessions', ...(path === '/whats-on' ? ['embed'] : [])];
      assert.deepEqual(parameters?.filter((parameter) => parameter['in'] === 'query').map((parameter) => parameter['name']), filters, path);
      assert.deepEqual(Object.keys(responses['200']?.content ?? {}), [mediaType], path);
      assert.deepEqual(Object.keys(responses).sort(), ['200', '304', '400', '401', '403', '404', '429'], path);
      // The page's problems are pages too, to a browser.
      const problems = path === '/whats-on' ? ['text/html', ...PROBLEMS] : PROBLEMS;
      for (const status of ['400', '401', '403', '404', '429']) assert.deepEqual(Object.keys(responses[status]?.content ?? {}), problems, `${path} ${status}`);
    }
    assert.deepEqual(doc.components.securitySchemes['ProgrammeKey'], {
      type: 'apiKey',
      in: 'query',
      name: 'key',
      description: doc.components.securitySchemes['ProgrammeKey']?.['description'],
    });
    const film = operation('/programme').parameters?.find((parameter) => parameter['name'] === 'film') as Json;
    assert.equal((film['schema'] as Json)['type'], 'array', 'film is repeatable');
  });

  test('names the XML elements and the namespace, wraps Films and repeats People', () => {
    const schemas = doc.components.schemas;
    // Schema, XML element, properties in JSON order (written from the contract).
    const records: [string, string, readonly string[]][] = [
      ['Film', 'Film', FILM],
      ['FilmV1', 'Film', FILM_V1],
      ['Person', 'People', PERSON],
      ['FilmPackage', 'FilmPackage', PACKAGE],
      ['FilmPackageFilm', 'FilmPackageFilm', PACKAGE_FILM],
      ['Screen', 'Screen', SCREEN],
      ['Attribute', 'Attribute', ATTRIBUTE],
      ['Site', 'Site', SITE],
      ['SiteScreen', 'Screen', SITE_SCREEN],
      ['Session', 'Session', SESSION],
      ['WebSession', 'Session', WEB_SESSION],
    ];
    for (const [name, element, properties] of records) {
      const schema = schemas[name] as { properties: Json; required: string[]; xml: Json };
      assert.deepEqual(schema.xml, { name: element, namespace: DATA_CONTRACT }, name);
      assert.deepEqual(Object.keys(schema.properties), properties, `${name}: the contract's properties, in JSON order`);
      assert.deepEqual(schema.required, properties, `${name}: every property is always present`);
    }
    const property = (schema: string, name: string): Json => (schemas[schema] as { properties: Record<string, Json> }).properties[name] ?? {};
    assert.deepEqual(property('Film', 'People')['xml'], { wrapped: false });
    assert.deepEqual(property('FilmPackage', 'Films')['xml'], { name: 'Films', wrapped: true });
    assert.deepEqual(property('FilmV1', 'People')['xml'], { name: 'People', wrapped: true });
    assert.deepEqual(schemas['PersonV1']?.['xml'], { name: 'Person', namespace: DATA_CONTRACT });
    assert.deepEqual((property('Session', 'SalesVia')['items'] as Json)['xml'], { name: 'SalesChannel' });
    assert.deepEqual((property('Session', 'Attributes')['items'] as Json)['xml'], { name: 'string', namespace: 'http://schemas.microsoft.com/2003/10/Serialization/Arrays', prefix: 'd2p1' });
    assert.deepEqual(Object.keys(schemas['WebSession']?.['properties'] as Json)[0], 'Url');
    assert.deepEqual(property('Film', 'ShortName')['type'], ['string', 'null']);
    assert.equal(property('Film', 'Title')['type'], 'string');
    assert.deepEqual(schemas['Problem']?.['xml'], { name: 'problem', namespace: 'urn:ietf:rfc:7807' });
    for (const [path, root] of [['/v4/film', 'ArrayOfFilm'], ['/v1/filmpackage', 'ArrayOfFilmPackage']]) {
      const list = operation(path as string).responses['200']?.content?.['application/xml']?.schema;
      assert.deepEqual(list?.['xml'], { name: root, namespace: DATA_CONTRACT, wrapped: true });
    }
  });

  test('follows the configured XML namespace', async () => {
    const app = buildApp({ catalogues: t.live, tokens: t.tokens, cacheControl: 'no-cache', xmlNamespace: 'urn:example:cinema' });
    const other = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
    await app.close();
    assert.equal(other.components.schemas['Film']?.['xml'] && (other.components.schemas['Film']['xml'] as Json)['namespace'], 'urn:example:cinema');
    const xmlExamples = Object.entries(other.components.examples).filter(([name]) => name.endsWith('.xml'));
    assert.equal(xmlExamples.length, new Set(Object.values(ANSWERS).map(([, shape]) => shape)).size * 2 - 1, 'a record and a list of each, and the one site');
    const shapeOf = (name: string): WireShape<unknown> | undefined =>
      name.includes('FilmV1') ? (FILM_V1_SHAPE as WireShape<unknown>) : name.includes('WebSession') ? (WEB_SESSION_SHAPE as WireShape<unknown>) : undefined;
    for (const [name, example] of xmlExamples) assert.equal(parseXmlAnswer(String(example.value), shapeOf(name)).namespace, 'urn:example:cinema', name);
  });
});

describe('examples', () => {
  /** The example of an answer: its media type's own, or the one of the components it refers to. */
  function exampleOf(path: string, status: string, mediaType: string): unknown {
    const media = operation(path).responses[status]?.content?.[mediaType];
    assert.ok(media, `${path} documents ${status} as ${mediaType}`);
    if (media.examples === undefined) return media.example;
    const refs = Object.values(media.examples);
    assert.equal(refs.length, 1, `${path} ${status} ${mediaType}: one example`);
    const name = refs[0]?.$ref.replace(/^#\/components\/examples\//, '') ?? '';
    const example = doc.components.examples[name];
    assert.ok(example, `${path} ${status} ${mediaType}: ${name} is among the components`);
    return example.value;
  }

  function get(app: TestApp['app'], url: string, accept: string) {
    return app.inject({ method: 'GET', url, headers: { accept } });
  }

  test('each catalogue answer has an example in JSON and in XML, of the same records', () => {
    for (const [path, [root, shape]] of Object.entries(ANSWERS)) {
      const json = exampleOf(path, '200', 'application/json');
      const xml = String(exampleOf(path, '200', 'application/xml'));
      assert.equal(typeof json, 'object', path);
      assert.deepEqual(exampleOf(path, '200', 'text/json'), json, path);
      assert.equal(exampleOf(path, '200', 'text/xml'), xml, path);
      const parsed = parseXmlAnswer(xml, shape);
      assert.deepEqual([parsed.root, parsed.namespace], [root, DATA_CONTRACT], path);
      assert.deepEqual(parsed.value, json, `${path}: the XML example holds what the JSON one does`);
    }
    assert.equal((exampleOf('/v4/film', '200', 'application/json') as Json[]).length, 2, 'the list examples hold more than one record');
  });

  test('the JSON examples are records of the demo cinema as its files hold them, property for property, in the contract\'s order', async () => {
    const demo = {
      film: await demoRecords('films'),
      filmpackage: await demoRecords('filmpackages'),
      screen: await demoRecords('screens'),
      attribute: await demoRecords('attributes'),
      site: await demoRecords('site'),
      session: await demoRecords('sessions'),
    };
    const only = (names: readonly string[]) => (record: Json): Json => Object.fromEntries(names.map((name) => [name, record[name]]));
    /** Per path: the demo file's records, as that path answers them, and the properties of one. */
    const expected: Readonly<Record<string, readonly [Json[], readonly string[]]>> = {
      '/v4/film': [demo.film, FILM],
      '/v1/film': [demo.film.map(only(FILM_V1)), FILM_V1],
      '/v1/filmpackage': [demo.filmpackage, PACKAGE],
      '/v1/screen': [demo.screen, SCREEN],
      '/v1/attribute': [demo.attribute, ATTRIBUTE],
      '/v1/session': [demo.session.map(only(SESSION)), SESSION],
      '/v1/websession': [demo.session.map(only(WEB_SESSION)), WEB_SESSION],
      '/v1/site': [demo.site, SITE],
    };
    for (const path of Object.keys(ANSWERS)) {
      const [records, properties] = expected[path.replace('/{id}', '')] ?? [[], []];
      const example = exampleOf(path, '200', 'application/json');
      for (const record of nonEmpty(Array.isArray(example) ? (example as Json[]) : [example as Json], `example of ${path}`)) {
        assert.deepEqual(Object.keys(record), properties, path);
        const own = path === '/v1/site' ? records[0] : records.find((candidate) => candidate['Id'] === record['Id']);
        assert.deepEqual(record, own, `${path}: ${String(record['Id'] ?? record['Name'])} as the demo files hold it`);
      }
    }
  });

  test('the examples are what the server answers for their records: equal JSON, the same XML bytes', async () => {
    const dir = await tempDir();
    // Sessions are imported with their Url, as the web session examples carry it.
    const sources = { films: '/v4/film', filmpackages: '/v1/filmpackage', screens: '/v1/screen', attributes: '/v1/attribute', site: '/v1/site', sessions: '/v1/websession' };
    const files: string[] = [];
    for (const [name, path] of Object.entries(sources)) {
      files.push(join(dir, `${name}.json`));
      await writeFile(files.at(-1) ?? '', JSON.stringify(exampleOf(path, '200', 'application/json')));
    }
    const { app } = await startTestApp(files);
    const id = (path: string): string => encodeURIComponent(String((exampleOf(path, '200', 'application/json') as Json)['Id']));
    // The sessions of the examples are past: /v1/websession answers none of them now.
    for (const path of Object.keys(ANSWERS).filter((candidate) => !candidate.startsWith('/v1/websession'))) {
      const url = path.replace('{id}', id(path));
      const json = await get(app, url, 'application/json');
      assert.equal(json.statusCode, 200, url);
      assert.deepEqual(json.json(), exampleOf(path, '200', 'application/json'), url);
      const xml = await get(app, url, 'application/xml');
      assert.equal(xml.body, exampleOf(path, '200', 'application/xml'), url);
    }
  });

  test('the programme has an example in each of its formats, of the samples\' evening, each what its reader takes', () => {
    const json = exampleOf('/programme', '200', 'application/json') as Json;
    assert.deepEqual([json['from'], json['days']], ['2025-01-06', 1]);
    const features = json['features'] as Json[];
    assert.deepEqual(features.map((feature) => feature['kind']), ['package', 'film'], 'the double bill at 5.30 pm, then Sherlock Jr. at 8.30 pm');
    const calendar = String(exampleOf('/programme.ics', '200', 'text/calendar'));
    const events = new ICAL.Component(ICAL.parse(calendar)).getAllSubcomponents('vevent');
    assert.deepEqual(events.map((event) => event.getFirstPropertyValue('summary')), features.map((feature) => feature['title']));
    const linked = exampleOf('/programme.jsonld', '200', 'application/ld+json') as Json;
    assert.deepEqual([linked['@context'], linked['@type'], (linked['event'] as Json[]).length], ['https://schema.org', 'MovieTheater', 2]);
  });

  test('the 404 and 401 examples are what the server answers, in JSON and XML', async () => {
    const bare = await startTestApp([]);
    for (const path of Object.keys(CATALOGUE_OPERATIONS).filter(answersNotFound)) {
      const json = exampleOf(path, '404', 'application/problem+json') as Json;
      const unknown = /'(.+)'/.exec(String(json['detail']))?.[1];
      assert.ok(unknown !== undefined || !path.includes('{id}'), `${path}: the 404 example names an id`);
      const url = path.replace('{id}', encodeURIComponent(unknown ?? ''));
      // Only a catalogue with no site answers /v1/site with a 404.
      const app = path.includes('{id}') ? t.app : bare.app;
      assert.deepEqual((await get(app, url, 'application/json')).json(), json, url);
      assert.equal((await get(app, url, 'application/xml')).body, exampleOf(path, '404', 'application/problem+xml'), url);
    }
    const closed = await startTestApp();
    await issueToken(closed.db, { customer: 'default', label: null });
    await closed.tokens.refresh();
    for (const path of Object.keys(CATALOGUE_OPERATIONS)) {
      const url = path.replace('{id}', '1');
      const json = await get(closed.app, url, 'application/json');
      assert.equal(json.statusCode, 401, url);
      assert.deepEqual(json.json(), exampleOf(path, '401', 'application/problem+json'), url);
      assert.equal((await get(closed.app, url, 'application/xml')).body, exampleOf(path, '401', 'application/problem+xml'), url);
    }
  });
});

describe('real answers match the document', () => {
  /** The schema the document gives for an answer, with its references resolved within it. */
  function documentedSchema(path: string, status: number, mediaType: string): Json {
    const media = operation(path).responses[String(status)]?.content?.[mediaType];
    assert.ok(media, `${path} documents ${status} as ${mediaType}`);
    const $defs = JSON.parse(JSON.stringify(doc.components.schemas).replace(/#\/components\/schemas\//g, '#/$defs/')) as Json;
    return { ...(JSON.parse(JSON.stringify(media.schema).replace(/#\/components\/schemas\//g, '#/$defs/')) as Json), $defs };
  }

  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // OpenAPI's own keyword; JSON Schema does not know it.
  ajv.addKeyword('xml');
  // The formats the programme's schemas name, as RFC 3339 and RFC 3986 write them.
  ajv.addFormat('date', /^\d{4}-\d\d-\d\d$/);
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
  ajv.addFormat('uri', (text: string) => URL.canParse(text));

  function check(path: string, response: LightMyRequestResponse): void {
    const mediaType = String(response.headers['content-type']).split(';')[0] ?? '';
    const schema = documentedSchema(path, response.statusCode, mediaType);
    const body: unknown = mediaType.endsWith('xml') ? parseXmlAnswerOrProblem(response.body, ANSWERS[path as keyof typeof ANSWERS]?.[1]) : response.json();
    const validate = ajv.compile(schema);
    assert.ok(validate(body), `${path} ${response.statusCode} ${mediaType}: ${ajv.errorsText(validate.errors)}`);
  }

  /** Problems are read back by hand; records with the parser that follows the wire shapes. */
  function parseXmlAnswerOrProblem(xml: string, shape: WireShape<unknown> | undefined): unknown {
    const problem = /^<problem xmlns="urn:ietf:rfc:7807"><type>(.*)<\/type><title>(.*)<\/title><status>(\d+)<\/status><detail>(.*)<\/detail><\/problem>$/.exec(xml);
    if (problem) return { type: problem[1], title: problem[2], status: Number(problem[3]), detail: problem[4] };
    return parseXmlAnswer(xml, shape).value;
  }

  const get = (url: string, accept = 'application/json') => t.app.inject({ method: 'GET', url, headers: { accept } });

  test('every film and package of the demo catalogue, lists and single records, in JSON and XML', async () => {
    for (const accept of ['application/json', 'text/json', 'application/xml', 'text/xml']) {
      const films = await get('/v4/film', accept);
      check('/v4/film', films);
      const packages = await get('/v1/filmpackage', accept);
      check('/v1/filmpackage', packages);
    }
    const films = (await get('/v4/film')).json<Json[]>();
    const packages = (await get('/v1/filmpackage')).json<Json[]>();
    assert.equal(films.length, 36);
    for (const film of films) {
      for (const accept of ['application/json', 'application/xml']) check('/v4/film/{id}', await get(`/v4/film/${encodeURIComponent(String(film['Id']))}`, accept));
    }
    for (const filmPackage of nonEmpty(packages, 'package')) {
      for (const accept of ['application/json', 'application/xml']) check('/v1/filmpackage/{id}', await get(`/v1/filmpackage/${String(filmPackage['Id'])}`, accept));
    }
  });

  test('the site, every screen, attribute, session, web session and v1 film of the demo, in JSON and XML', async () => {
    const now = Date.now();
    const file = join(await tempDir(), 'sessions.json');
    await writeFile(file, JSON.stringify([sessionAt(1, now + 3_600_000), sessionAt(2, now + 7_200_000, { Attributes: [], SalesVia: ['WWW'], PriceCardName: 'Evening' })]));
    const onSale = await startTestApp([...DEMO_FILES.filter((name) => !name.endsWith('sessions.json')), file]);
    for (const [list, item, key] of [['/v1/film', '/v1/film/{id}', 'Id'], ['/v1/screen', '/v1/screen/{id}', 'Id'], ['/v1/attribute', '/v1/attribute/{id}', 'Id'], ['/v1/session', '/v1/session/{id}', 'Id']] as const) {
      for (const accept of ['application/json', 'text/json', 'application/xml', 'text/xml']) check(list, await get(list, accept));
      for (const record of nonEmpty((await get(list)).json<Json[]>(), `record of ${list}`)) {
        for (const accept of ['application/json', 'application/xml']) check(item, await get(item.replace('{id}', encodeURIComponent(String(record[key]))), accept));
      }
    }
    for (const accept of ['application/json', 'application/xml']) {
      check('/v1/site', await get('/v1/site', accept));
      check('/v1/websession', await onSale.app.inject({ url: '/v1/websession', headers: { accept } }));
      check('/v1/websession/{id}', await onSale.app.inject({ url: '/v1/websession/2', headers: { accept } }));
    }
    assert.equal((await onSale.app.inject('/v1/websession')).json<Json[]>().length, 2);
  });

  test('404 problems, in JSON and XML', async () => {
    for (const accept of ['application/json', 'application/xml']) {
      check('/v4/film/{id}', await get('/v4/film/NOPE', accept));
      check('/v1/filmpackage/{id}', await get('/v1/filmpackage/abc', accept));
      check('/v1/filmpackage/{id}', await get('/v1/filmpackage/99', accept));
      check('/v1/websession/{id}', await get('/v1/websession/1001', accept));
      check('/v1/attribute/{id}', await get('/v1/attribute/NOPE', accept));
    }
  });

  test('the programme, its examples, and its problems', async () => {
    check('/programme', await get('/programme?from=2025-01-06&days=14&sessions=all'));
    check('/programme', await get('/programme?days=0'));
    check('/programme.ics', await get('/programme.ics?from=x', 'application/xml'));
    const validate = ajv.compile(documentedSchema('/programme', 200, 'application/json'));
    const example = doc.components.examples['Programme.json']?.value;
    assert.ok(validate(example), ajv.errorsText(validate.errors));
  });

  test('the operations endpoints', async () => {
    check('/healthz', await get('/healthz'));
    check('/readyz', await get('/readyz'));
    const metrics = await get('/metrics');
    assert.ok(operation('/metrics').responses['200']?.content?.['text/plain'], 'metrics are documented as text/plain');
    assert.match(String(metrics.headers['content-type']), /^text\/plain;/);
  });

  test('a schema that disagrees with an answer is caught', () => {
    const validate = ajv.compile(documentedSchema('/v4/film/{id}', 200, 'application/json'));
    const film = { ...Object.fromEntries(FILM.map((name) => [name, null])), Title: 'x' };
    assert.equal(validate(film), false);
    assert.match(ajv.errorsText(validate.errors), /Id|must be/);
  });
});
