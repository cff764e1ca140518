import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import { FILM_SHAPE, PACKAGE_FILM_SHAPE, PACKAGE_SHAPE, PERSON_SHAPE, type WireShape } from '../src/formats/wire-shape.js';
import { buildApp } from '../src/http/app.js';
import { parseXmlAnswer, startTestApp, type TestApp } from './helpers.js';

type Json = Record<string, unknown>;
interface MediaType { readonly schema: Json }
interface Response { readonly content?: Readonly<Record<string, MediaType>>; readonly headers?: Json }
interface Operation { readonly operationId: string; readonly tags: string[]; readonly security?: Json[]; readonly parameters?: Json[]; readonly responses: Readonly<Record<string, Response>> }
interface Document {
  readonly openapi: string;
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components: { readonly schemas: Readonly<Record<string, Json>>; readonly securitySchemes: Readonly<Record<string, Json>> };
}

const DATA_CONTRACT = 'http://schemas.datacontract.org/2004/07/Vista.Online.BackOffice.Api.Models.V1';
const CATALOGUE_OPERATIONS = { '/v4/film': 'listFilms', '/v4/film/{id}': 'getFilm', '/v1/filmpackage': 'listFilmPackages', '/v1/filmpackage/{id}': 'getFilmPackage' };
const OPERATIONS_ENDPOINTS = ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs'];
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
    const docs = await get('/docs');
    assert.match(String(docs.headers['content-type']), /^text\/html;/);
    assert.ok(operation('/docs').responses['200']?.content?.['text/html']);
  });

  test('a schema that disagrees with an answer is caught', () => {
    const validate = ajv.compile(documentedSchema('/v4/film/{id}', 200, 'application/json'));
    const film = { ...Object.fromEntries(FILM_SHAPE.fields.map((field) => [field.name, null])), Title: 'x' };
    assert.equal(validate(film), false);
    assert.match(ajv.errorsText(validate.errors), /Id|must be/);
  });
});
