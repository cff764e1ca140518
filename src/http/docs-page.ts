/**
 * The API reference page, rendered on the server from the OpenAPI document: plain HTML with its
 * style inline, no script and nothing else to load, so that it works offline and its content
 * security policy can forbid every other source.
 */
import { createHash } from 'node:crypto';

export interface SchemaObject {
  readonly type?: string | readonly string[];
  readonly $ref?: string;
  readonly items?: SchemaObject;
  readonly enum?: readonly unknown[];
  readonly description?: string;
  readonly properties?: Readonly<Record<string, SchemaObject>>;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
  readonly xml?: { readonly name?: string; readonly namespace?: string; readonly wrapped?: boolean };
}

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema?: SchemaObject;
}

interface Response {
  readonly description: string;
  readonly headers?: Readonly<Record<string, { readonly description?: string }>>;
  readonly content?: Readonly<Record<string, { readonly schema?: SchemaObject }>>;
}

interface Operation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly parameters?: readonly Parameter[];
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  readonly responses?: Readonly<Record<string, Response>>;
}

interface SecurityScheme {
  readonly type: string;
  readonly name?: string;
  readonly scheme?: string;
  readonly description?: string;
}

/** The parts of an OpenAPI 3.1 document the page shows. */
export interface OpenApiDocument {
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components?: {
    readonly schemas?: Readonly<Record<string, SchemaObject>>;
    readonly securitySchemes?: Readonly<Record<string, SecurityScheme>>;
  };
}

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem 2rem 4rem; color: #1d1d1f; }
h1 small { color: #6e6e73; font-weight: normal; font-size: 1rem; }
h2 { border-bottom: 2px solid #d2d2d7; margin-top: 3rem; }
code { font-family: ui-monospace, monospace; font-size: 0.9em; background: #f5f5f7; border-radius: 4px; padding: 0 0.25em; }
.operation { border: 1px solid #d2d2d7; border-radius: 8px; padding: 0 1.25rem 1rem; margin: 1.5rem 0; }
.method { display: inline-block; background: #0a6b3d; color: #fff; border-radius: 4px; padding: 0 0.5em; font-size: 0.85em; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid #e5e5ea; padding: 0.3rem 0.5rem; }
th { font-weight: 600; }
`;

/** Allows the inline style by its digest and nothing else: the page loads no other resource. */
export const DOCS_CONTENT_SECURITY_POLICY =
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const METHODS = ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'trace'];

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Escapes text and shows its `code spans` as code, the only markup the descriptions use. */
function prose(text: string | undefined): string {
  return escapeHtml(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');
}

function schemaName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function anchor(prefix: string, name: string): string {
  return `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/** A schema's type in words, linking to named schemas. */
function typeOf(schema: SchemaObject | undefined): string {
  if (schema === undefined) return '';
  if (schema.$ref !== undefined) {
    const name = schemaName(schema.$ref);
    return `<a href="#${anchor('schema', name)}">${escapeHtml(name)}</a>`;
  }
  if (schema.enum !== undefined) return `one of ${schema.enum.map((value) => `<code>${escapeHtml(String(value))}</code>`).join(', ')}`;
  const types = typeof schema.type === 'string' ? [schema.type] : [...(schema.type ?? [])];
  return types.map((type) => (type === 'array' ? `array of ${typeOf(schema.items)}` : escapeHtml(type))).join(' or ');
}

function limits(schema: SchemaObject): string {
  const range = (min: number | undefined, max: number | undefined, unit: (n: number) => string): string | undefined => {
    if (min !== undefined && max !== undefined) return `from ${min} to ${unit(max)}`;
    if (min !== undefined) return `at least ${unit(min)}`;
    return max === undefined ? undefined : `at most ${unit(max)}`;
  };
  const parts = [
    range(schema.minLength, schema.maxLength, (n) => `${n} character${n === 1 ? '' : 's'}`),
    range(schema.minimum, schema.maximum, String),
    schema.pattern === undefined ? undefined : `matches <code>${escapeHtml(schema.pattern)}</code>`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? '' : ` <small>(${parts.join(', ')})</small>`;
}

function table(headings: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const head = headings.map((heading) => `<th>${heading}</th>`).join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${rows.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

function security(operation: Operation, schemes: Readonly<Record<string, SecurityScheme>>): string {
  const names = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (names.length === 0) return '<p>No token needed.</p>';
  const ways = names.map((name) => {
    const scheme = schemes[name];
    return scheme?.type === 'apiKey' ? `<code>${escapeHtml(scheme.name ?? name)}: TOKEN</code>` : '<code>Authorization: Bearer TOKEN</code>';
  });
  return `<p>Token: ${ways.join(' or ')} (<a href="#security">how tokens work</a>).</p>`;
}

function operationSection(path: string, method: string, operation: Operation, schemes: Readonly<Record<string, SecurityScheme>>): string {
  const id = operation.operationId ?? anchor(method, path);
  const parameters = table(
    ['Name', 'In', 'Type', 'Description'],
    (operation.parameters ?? []).map((parameter) => [
      `<code>${escapeHtml(parameter.name)}</code>${parameter.required ? ' <small>required</small>' : ''}`,
      escapeHtml(parameter.in),
      typeOf(parameter.schema) + (parameter.schema ? limits(parameter.schema) : ''),
      prose(parameter.description),
    ]),
  );
  const responses = table(
    ['Status', 'Meaning', 'Body'],
    Object.entries(operation.responses ?? {}).map(([status, response]) => {
      const headers = Object.entries(response.headers ?? {}).map(([name, header]) => `<br><code>${escapeHtml(name)}</code>: ${prose(header.description)}`);
      const content = Object.entries(response.content ?? {});
      const schema = content[0]?.[1].schema;
      const root = schema?.xml?.name === undefined ? '' : `; XML root <code>${escapeHtml(schema.xml.name)}</code>`;
      const body = content.length === 0 ? 'none' : `${typeOf(schema)}${root}, as ${content.map(([type]) => `<code>${escapeHtml(type)}</code>`).join(', ')}`;
      return [`<strong>${escapeHtml(status)}</strong>`, prose(response.description) + headers.join(''), body];
    }),
  );
  return (
    `<article class="operation" id="${escapeHtml(id)}">` +
    `<h3><span class="method">${escapeHtml(method.toUpperCase())}</span> <code class="path">${escapeHtml(path)}</code> — ${prose(operation.summary)}</h3>` +
    `<p>${prose(operation.description)}</p>${security(operation, schemes)}` +
    (parameters === '' ? '' : `<h4>Parameters</h4>${parameters}`) +
    `<h4>Responses</h4>${responses}</article>`
  );
}

function schemaSection(name: string, schema: SchemaObject): string {
  const xml = schema.xml?.name === undefined ? '' : `<p>XML element <code>${escapeHtml(schema.xml.name)}</code>${schema.xml.namespace ? ` in the namespace <code>${escapeHtml(schema.xml.namespace)}</code>` : ''}.</p>`;
  const rows = Object.entries(schema.properties ?? {}).map(([property, propertySchema]) => [
    `<code>${escapeHtml(property)}</code>`,
    typeOf(propertySchema) + limits(propertySchema),
    prose(propertySchema.description),
  ]);
  return `<section id="${anchor('schema', name)}"><h3>${escapeHtml(name)}</h3><p>${prose(schema.description)}</p>${xml}${table(['Property', 'Type', 'Meaning'], rows)}</section>`;
}

export function renderDocsPage(document: OpenApiDocument): string {
  const schemes = document.components?.securitySchemes ?? {};
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => ({ path, method, operation: item[method] as Operation })),
  );
  const tags = document.tags ?? [];
  const contents = tags
    .map((tag) => {
      const links = operations
        .filter(({ operation }) => operation.tags?.includes(tag.name))
        .map(({ path, method, operation }) => `<li><a href="#${escapeHtml(operation.operationId ?? anchor(method, path))}">${escapeHtml(method.toUpperCase())} ${escapeHtml(path)}</a></li>`);
      return `<li>${escapeHtml(tag.name)}<ul>${links.join('')}</ul></li>`;
    })
    .join('');
  const sections = tags
    .map((tag) => {
      const articles = operations.filter(({ operation }) => operation.tags?.includes(tag.name)).map(({ path, method, operation }) => operationSection(path, method, operation, schemes));
      return `<section id="${anchor('tag', tag.name)}"><h2>${escapeHtml(tag.name)}</h2><p>${prose(tag.description)}</p>${articles.join('')}</section>`;
    })
    .join('');
  const schemas = Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => schemaSection(name, schema));
  const securityRows = Object.entries(schemes).map(([name, scheme]) => [`<code>${escapeHtml(name)}</code>`, prose(scheme.description)]);
  const title = `${document.info.title} API reference`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>` +
    `<header><h1>${escapeHtml(title)} <small>version ${escapeHtml(document.info.version)}</small></h1><p>${prose(document.info.description)}</p>` +
    `<p>The machine-readable form of this page: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p></header>` +
    `<nav><h2>Contents</h2><ul>${contents}<li><a href="#schemas">Schemas</a></li><li><a href="#security">Tokens</a></li></ul></nav>` +
    `<main>${sections}<section id="schemas"><h2>Schemas</h2>${schemas.join('')}</section>` +
    `<section id="security"><h2>Tokens</h2><p>While no token exists, the catalogue answers without one; once <code>marquee token create</code> has made one, every catalogue request needs a token. Operations endpoints never do.</p>` +
    `${table(['Scheme', 'How'], securityRows)}</section></main></body></html>`
  );
}
