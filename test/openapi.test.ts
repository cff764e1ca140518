import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import { FILM_SHAPE, PACKAGE_FILM_SHAPE, PACKAGE_SHAPE, PERSON_SHAPE, type WireShape } from '../src/formats/wire-shape.js';
import { issueToken } from '../src/access/manage-tokens.js';
import { buildApp } from '../src/http/app.js';
import { parseXmlAnswer, startTestApp, tempDir, type TestApp } from './helpers.js';

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
const CATALOGUE_OPERATIONS = { '/v4/film': 'listFilms', '/v4/film/{id}': 'getFilm', '/v1/filmpackage': 'listFilmPackages', '/v1/filmpackage/{id}': 'getFilmPackage' };
const OPERATIONS_ENDPOINTS = ['/healthz', '/readyz', '/metrics', '/openapi.json'];
const REPRESENTATIONS = ['application/json', 'text/json', 'application/xml', 'text/xml'];
const PROBLEMS = ['application/problem+json', 'application/problem+xml'];

let t: TestApp;
let doc: Document;

before(async () => {
  t = await startTestApp();
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
  test('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Json);
    assert.equal(validator.version, '3.1');
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  });

  test('lists the four catalogue operations and every operations endpoint, GET only', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), [...Object.keys(CATALOGUE_OPERATIONS), ...OPERATIONS_ENDPOINTS].sort());
    for (const [path, id] of Object.entries(CATALOGUE_OPERATIONS)) assert.equal(operation(path).operationId, id);
    for (const path of OPERATIONS_ENDPOINTS) assert.deepEqual(operation(path).tags, ['Operations']);
    for (const item of Object.values(doc.paths)) assert.deepEqual(Object.keys(item), ['get']);
  });

  test('describes both formats, the problems and the tokens of each catalogue operation', () => {
    for (const path of Object.keys(CATALOGUE_OPERATIONS)) {
      const { responses, security, parameters } = operation(path);
      assert.deepEqual(Object.keys(responses['200']?.content ?? {}), REPRESENTATIONS, path);
      assert.deepEqual(Object.keys(responses['200']?.headers ?? {}), ['ETag', 'Cache-Control', 'Vary'], path);
      assert.equal(responses['304']?.content, undefined, `${path}: 304 has no body`);
      for (const status of path.endsWith('{id}') ? ['401', '404', '429'] : ['401', '429']) {
        assert.deepEqual(Object.keys(responses[status]?.content ?? {}), PROBLEMS, `${path} ${status}`);
      }
      assert.equal(responses['404'] === undefined, !path.endsWith('{id}'), `${path}: 404 only where an id can be unknown`);
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

  test('names the XML elements and the namespace, wraps Films and repeats People', () => {
    const schemas = doc.components.schemas;
    const shapes: [string, WireShape<never>][] = [['Film', FILM_SHAPE], ['Person', PERSON_SHAPE], ['FilmPackage', PACKAGE_SHAPE], ['FilmPackageFilm', PACKAGE_FILM_SHAPE]];
    for (const [name, shape] of shapes) {
      const schema = schemas[name] as { properties: Json; required: string[]; xml: Json };
      assert.deepEqual(schema.xml, { name: shape.name, namespace: DATA_CONTRACT }, name);
      assert.deepEqual(Object.keys(schema.properties), shape.fields.map((field) => field.name), `${name}: the wire shape's properties, in JSON order`);
      assert.deepEqual(schema.required, shape.fields.map((field) => field.name), `${name}: every property is always present`);
    }
    const property = (schema: string, name: string): Json => (schemas[schema] as { properties: Record<string, Json> }).properties[name] ?? {};
    assert.deepEqual(property('Film', 'People')['xml'], { wrapped: false });
    assert.deepEqual(property('FilmPackage', 'Films')['xml'], { name: 'Films', wrapped: true });
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
    assert.equal(xmlExamples.length, 4);
    for (const [name, example] of xmlExamples) assert.equal(parseXmlAnswer(String(example.value)).namespace, 'urn:example:cinema', name);
  });
});

describe('examples', () => {
  const ANSWER_ROOTS = { '/v4/film': 'ArrayOfFilm', '/v4/film/{id}': 'Film', '/v1/filmpackage': 'ArrayOfFilmPackage', '/v1/filmpackage/{id}': 'FilmPackage' };

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
    for (const [path, root] of Object.entries(ANSWER_ROOTS)) {
      const json = exampleOf(path, '200', 'application/json');
      const xml = String(exampleOf(path, '200', 'application/xml'));
      assert.equal(typeof json, 'object', path);
      assert.deepEqual(exampleOf(path, '200', 'text/json'), json, path);
      assert.equal(exampleOf(path, '200', 'text/xml'), xml, path);
      const parsed = parseXmlAnswer(xml);
      assert.deepEqual([parsed.root, parsed.namespace], [root, DATA_CONTRACT], path);
      assert.deepEqual(parsed.value, json, `${path}: the XML example holds what the JSON one does`);
    }
    assert.equal((exampleOf('/v4/film', '200', 'application/json') as Json[]).length, 2, 'the list examples hold more than one record');
  });

  test('the examples are what the server answers for their records: equal JSON, the same XML bytes', async () => {
    const dir = await tempDir();
    const files = [join(dir, 'films.json'), join(dir, 'filmpackages.json')];
    await writeFile(files[0] ?? '', JSON.stringify(exampleOf('/v4/film', '200', 'application/json')));
    await writeFile(files[1] ?? '', JSON.stringify(exampleOf('/v1/filmpackage', '200', 'application/json')));
    const { app } = await startTestApp(files);
    const id = (path: string): string => encodeURIComponent(String((exampleOf(path, '200', 'application/json') as Json)['Id']));
    const urls = { '/v4/film': '/v4/film', '/v4/film/{id}': `/v4/film/${id('/v4/film/{id}')}`, '/v1/filmpackage': '/v1/filmpackage', '/v1/filmpackage/{id}': `/v1/filmpackage/${id('/v1/filmpackage/{id}')}` };
    for (const [path, url] of Object.entries(urls)) {
      const json = await get(app, url, 'application/json');
      assert.equal(json.statusCode, 200, url);
      assert.deepEqual(json.json(), exampleOf(path, '200', 'application/json'), url);
      const xml = await get(app, url, 'application/xml');
      assert.equal(xml.body, exampleOf(path, '200', 'application/xml'), url);
    }
  });

  test('the 404 and 401 examples are what the server answers, in JSON and XML', async () => {
    for (const path of ['/v4/film/{id}', '/v1/filmpackage/{id}']) {
      const json = exampleOf(path, '404', 'application/problem+json') as Json;
      const unknown = /'(.+)'/.exec(String(json['detail']))?.[1];
      assert.ok(unknown, `${path}: the 404 example names an id`);
      const url = path.replace('{id}', encodeURIComponent(unknown));
      assert.deepEqual((await get(t.app, url, 'application/json')).json(), json, url);
      assert.equal((await get(t.app, url, 'application/xml')).body, exampleOf(path, '404', 'application/problem+xml'), url);
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

  function check(path: string, response: LightMyRequestResponse): void {
    const mediaType = String(response.headers['content-type']).split(';')[0] ?? '';
    const schema = documentedSchema(path, response.statusCode, mediaType);
    const body: unknown = mediaType.endsWith('xml') ? parseXmlAnswerOrProblem(response.body) : response.json();
    const validate = ajv.compile(schema);
    assert.ok(validate(body), `${path} ${response.statusCode} ${mediaType}: ${ajv.errorsText(validate.errors)}`);
  }

  /** Problems are read back by hand; records with the parser that follows the wire shapes. */
  function parseXmlAnswerOrProblem(xml: string): unknown {
    const problem = /^<problem xmlns="urn:ietf:rfc:7807"><type>(.*)<\/type><title>(.*)<\/title><status>(\d+)<\/status><detail>(.*)<\/detail><\/problem>$/.exec(xml);
    if (problem) return { type: problem[1], title: problem[2], status: Number(problem[3]), detail: problem[4] };
    return parseXmlAnswer(xml).value;
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
    for (const filmPackage of packages) {
      for (const accept of ['application/json', 'application/xml']) check('/v1/filmpackage/{id}', await get(`/v1/filmpackage/${String(filmPackage['Id'])}`, accept));
    }
  });

  test('404 problems, in JSON and XML', async () => {
    for (const accept of ['application/json', 'application/xml']) {
      check('/v4/film/{id}', await get('/v4/film/NOPE', accept));
      check('/v1/filmpackage/{id}', await get('/v1/filmpackage/abc', accept));
      check('/v1/filmpackage/{id}', await get('/v1/filmpackage/99', accept));
    }
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
    const film = { ...Object.fromEntries(FILM_SHAPE.fields.map((field) => [field.name, null])), Title: 'x' };
    assert.equal(validate(film), false);
    assert.match(ajv.errorsText(validate.errors), /Id|must be/);
  });
});
