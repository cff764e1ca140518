/**
 * The schemas of the API's answers, derived from the wire shapes so that what the OpenAPI
 * document promises is what the writers produce. One schema per record serves both formats: its
 * `xml` annotations name the elements and the namespace of the XML form. An answer refers to its
 * examples among the document's components, written there for the server's XML namespace; a
 * problem's examples, the same in every namespace, sit in its response.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import type { FormatName } from '../formats/representation.js';
import {
  ATTRIBUTE_SHAPE,
  FILM_SHAPE,
  FILM_V1_SHAPE,
  PACKAGE_FILM_SHAPE,
  PACKAGE_SHAPE,
  PERSON_SHAPE,
  PERSON_V1_SHAPE,
  SCREEN_SHAPE,
  SESSION_SHAPE,
  SITE_SCREEN_SHAPE,
  SITE_SHAPE,
  WEB_SESSION_SHAPE,
  arrayRootName,
  type ListField,
  type ScalarField,
  type TextListField,
  type WireShape,
} from '../formats/wire-shape.js';
import type { Problem } from '../http/http-error.js';
import { PROBLEM_NAMESPACE } from '../http/problem.js';
import { MISSING_TOKEN, exampleName, notFoundProblem, problemExamples } from './examples.js';

const elementOrder = (shape: WireShape<never>): string =>
  `In XML the child elements come in ordinal alphabetical order (${shape.xmlFields.map((field) => field.name).join(', ')}), as DataContract serializers require.`;

/**
 * Each record's schema in the document: its name there (Person's element is `People`, and the
 * v1 film and the web session share their elements with the v4 film and the session), and what
 * it is.
 */
const COMPONENTS = new Map<WireShape<never>, { readonly name: string; readonly description: string }>([
  [FILM_SHAPE, { name: 'Film', description: `A film. All ${FILM_SHAPE.fields.length} properties are always present, in this order.` }],
  [FILM_V1_SHAPE, { name: 'FilmV1', description: `A film in the older shape of \`/v1/film\`: ${FILM_V1_SHAPE.fields.length} properties, without LastModifiedDate and the four URLs; in XML its people are wrapped in one \`People\` element.` }],
  [PERSON_SHAPE, { name: 'Person', description: 'A person involved with a film.' }],
  [PERSON_V1_SHAPE, { name: 'PersonV1', description: 'A person involved with a film, as the v1 film lists them.' }],
  [PACKAGE_SHAPE, { name: 'FilmPackage', description: 'A film package: films shown together, such as a double feature.' }],
  [PACKAGE_FILM_SHAPE, { name: 'FilmPackageFilm', description: 'One film of a package.' }],
  [SCREEN_SHAPE, { name: 'Screen', description: 'A screen (auditorium) of the site.' }],
  [ATTRIBUTE_SHAPE, { name: 'Attribute', description: 'A feature of sessions shown to customers, such as a subtitled or a relaxed screening.' }],
  [SITE_SHAPE, { name: 'Site', description: 'The cinema: one per customer.' }],
  [SITE_SCREEN_SHAPE, { name: 'SiteScreen', description: 'A screen of the site, by Id.' }],
  [SESSION_SHAPE, { name: 'Session', description: 'A session: a showing of a film or a film package on a screen.' }],
  [WEB_SESSION_SHAPE, { name: 'WebSession', description: 'A session on sale on the web: the session with its Url, first in JSON and last in XML, where the element is `Session`.' }],
]);

const JSON_TYPES = { text: 'string', integer: 'integer', boolean: 'boolean', percent: 'number' } as const;

export function componentName(shape: WireShape<never>): string {
  const component = COMPONENTS.get(shape);
  if (component === undefined) throw new Error(`the wire shape ${shape.name} has no schema`);
  return component.name;
}

function scalarSchema(field: ScalarField<never>): TSchema {
  const { oneOf, ...limits } = field.values ?? {};
  const type = JSON_TYPES[field.kind];
  const description = field.nullable ? `${field.description} May be null (\`i:nil="true"\` in XML).` : field.description;
  // `type: [T, 'null']` is how JSON Schema 2020-12 (and so OpenAPI 3.1) says "T or null".
  return Type.Unsafe({ type: field.nullable ? [type, 'null'] : type, ...(oneOf && { enum: oneOf }), ...limits, description });
}

function listSchema(field: ListField<never, unknown>): TSchema {
  // A repeated list writes its items' elements straight into the record; a wrapped one puts
  // them inside one element named after the property.
  const xml = field.xml === 'wrapped' ? { name: field.name, wrapped: true } : { wrapped: false };
  return Type.Array(Type.Ref(componentName(field.item)), { description: field.description, xml });
}

function textListSchema(field: TextListField<never>): TSchema {
  const { oneOf, ...limits } = field.values ?? {};
  const namespace = field.itemNamespace === undefined ? {} : { namespace: field.itemNamespace.uri, prefix: field.itemNamespace.prefix };
  const item = Type.Unsafe({ type: 'string', ...(oneOf && { enum: oneOf }), ...limits, xml: { name: field.itemElement, ...namespace } });
  return Type.Array(item, { description: field.description, xml: { name: field.name, wrapped: true } });
}

function fieldSchema(field: WireShape<never>['fields'][number]): TSchema {
  if (field.kind === 'list') return listSchema(field);
  return field.kind === 'textList' ? textListSchema(field) : scalarSchema(field);
}

function recordSchema(shape: WireShape<never>, namespace: string, description: string): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const field of shape.fields) properties[field.name] = fieldSchema(field);
  return Type.Object(properties, { $id: componentName(shape), additionalProperties: false, description, xml: { name: shape.name, namespace } });
}

/** The shared schemas the routes refer to by name, for the XML namespace the server writes. */
export function componentSchemas(namespace: string): TSchema[] {
  return [
    ...[...COMPONENTS].map(([shape, { description }]) => recordSchema(shape, namespace, `${description} ${elementOrder(shape)}`)),
    Type.Object(
      {
        type: Type.String({ description: 'Always `about:blank`: the status says what kind of problem it is.' }),
        title: Type.String({ description: 'The status in words, such as `Not Found`.' }),
        status: Type.Integer({ description: 'The HTTP status code.' }),
        detail: Type.String({ description: "What went wrong with this request, such as `No film has the id 'X'.`" }),
      },
      {
        $id: 'Problem',
        additionalProperties: false,
        description: `Problem details (RFC 9457). In XML the root is \`problem\` in the namespace \`${PROBLEM_NAMESPACE}\`.`,
        xml: { name: 'problem', namespace: PROBLEM_NAMESPACE },
      },
    ),
  ];
}

/** What a catalogue operation answers: the schema of its body, and what its examples are named after. */
export interface Answer {
  readonly schema: TSchema;
  /** The record the answer is about, or whose list it is. */
  readonly shape: WireShape<never>;
  /** The XML root of the answer: `Film`, `ArrayOfFilm`, … */
  readonly root: string;
  /** What its examples are named after: its record's schema, or `ArrayOf` that schema. */
  readonly example: string;
}

/** One record: `Film` in XML, an object in JSON. */
export function recordAnswer(shape: WireShape<never>): Answer {
  return { schema: Type.Ref(componentName(shape)), shape, root: shape.name, example: componentName(shape) };
}

/** A list: `ArrayOfFilm` holding `Film` elements in XML, an array in JSON. */
export function listAnswer(shape: WireShape<never>, namespace: string): Answer {
  const root = arrayRootName(shape);
  const schema = Type.Array(Type.Ref(componentName(shape)), { xml: { name: root, namespace, wrapped: true } });
  return { schema, shape, root, example: arrayRootName({ name: componentName(shape) }) };
}

const PROBLEM_REF = Type.Ref('Problem');

interface MediaType {
  readonly schema: TSchema;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, { readonly $ref: string }>>;
}

/** A response whose body is a problem, in JSON or XML; with the body of `example` in each. */
export function problemDocumentation(description: string, example?: Problem): { description: string; content: Record<string, MediaType> } {
  const bodies = example && problemExamples(example);
  const media = (format: FormatName): MediaType => ({ schema: PROBLEM_REF, ...(bodies && { example: bodies[format] }) });
  return { description, content: { 'application/problem+json': media('json'), 'application/problem+xml': media('xml') } };
}

/** What sets one catalogue operation apart from the others. */
export interface CatalogueOperation {
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description: string;
  /** What a 200 answers. */
  readonly answer: Answer;
  /** The `{id}` path segment, for an operation on one record. */
  readonly id?: TSchema;
  /** When an id can name no record: what the 404 means. */
  readonly notFound?: string;
}

const REPRESENTATION_TYPES: readonly (readonly [string, FormatName])[] = [
  ['application/json', 'json'],
  ['text/json', 'json'],
  ['application/xml', 'xml'],
  ['text/xml', 'xml'],
];

const ETAG = { type: 'string', description: 'Strong validator of this representation; it changes exactly when its bytes change.' };

const QUERYSTRING = Type.Object({
  format: Type.Optional(
    Type.Unsafe<'json' | 'xml'>({ type: 'string', enum: ['json', 'xml'], description: 'Overrides the Accept header. Other values are ignored, as are unknown parameters.' }),
  ),
});

/** The cache tags of a catalogue or programme answer (CONTRACT §14), which a change's event names to purge it. */
export const CACHE_TAG_HEADERS = {
  'Surrogate-Key': {
    type: 'string',
    description: "Space-separated cache tags: one for the customer (a digest, never its key) and one for each kind of record the answer is made of (`…-films`, `…-sessions`, …). A `catalogue.changed` event's `tags` name those of the kinds it altered.",
  },
  'Cache-Tag': { type: 'string', description: 'The same tags as Surrogate-Key, comma-separated.' },
};

/** The request headers every answer with an ETag reads. */
export const REVALIDATION_HEADERS = Type.Object({
  'If-None-Match': Type.Optional(Type.String({ description: 'ETags the client holds; when one is the current ETag the answer is 304 with no body.' })),
});

const NEGOTIATION =
  'The Accept header chooses JSON (`application/json`, `text/json`) or XML (`application/xml`, `text/xml`) by q-value, then ' +
  'specificity; no Accept, `*/*` or any other type gets JSON, never 406. HEAD answers the same status and headers with no body; ' +
  'any other method answers 405 with `Allow: GET, HEAD`.';

/** The 304 of an answer whose ETag is described by `etag`. */
export function notModified(etag: object): object {
  return { description: 'Not modified: If-None-Match named the current ETag. No body.', headers: { ETag: etag }, type: 'null' };
}

/** The schema of a catalogue route: its parameters, headers and every answer it can give. */
export function catalogueOperation(operation: CatalogueOperation): FastifySchema {
  const { answer } = operation;
  const representation = (format: FormatName): MediaType => ({
    schema: answer.schema,
    examples: { [answer.root]: { $ref: `#/components/examples/${exampleName(answer.example, format)}` } },
  });
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: `${operation.description} ${NEGOTIATION}`,
    security: [{ VeeziAccessToken: [] }, { BearerToken: [] }],
    ...(operation.id && { params: Type.Object({ id: operation.id }) }),
    querystring: QUERYSTRING,
    headers: REVALIDATION_HEADERS,
    response: {
      200: {
        description: 'The answer, in the negotiated format.',
        headers: {
          ETag: ETAG,
          'Cache-Control': { type: 'string', description: '`no-cache` unless the server is configured otherwise.' },
          Vary: { type: 'string', description: '`Accept`: the answer depends on it.' },
          ...CACHE_TAG_HEADERS,
        },
        content: Object.fromEntries(REPRESENTATION_TYPES.map(([type, format]) => [type, representation(format)])),
      },
      304: notModified(ETAG),
      ...(operation.notFound && { 404: problemDocumentation(operation.notFound, notFoundProblem(answer.shape)) }),
      401: problemDocumentation('The token is missing, unknown or revoked (once any token exists). Carries `WWW-Authenticate: Bearer realm="marquee"`.', MISSING_TOKEN),
      429: problemDocumentation("The token's rate limit is spent (when rate limits are configured). Carries `Retry-After`."),
    },
  };
}
