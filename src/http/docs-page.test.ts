import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderDocsPage, type OpenApiDocument } from './docs-page.js';

const DOCUMENT: OpenApiDocument = {
  info: { title: 'Cinema <Test>', version: '1.0', description: 'Uses `code` & <b>markup</b>.' },
  tags: [{ name: 'Films' }],
  paths: {
    '/films/{id}': {
      get: {
        operationId: 'getFilm',
        summary: 'Get <one>',
        tags: ['Films'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } }],
        responses: { '200': { description: 'The film.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Film' } } } } },
      },
    },
  },
  components: { schemas: { Film: { type: 'object', properties: { Id: { type: ['string', 'null'], minLength: 1, maxLength: 64 } }, xml: { name: 'Film', namespace: 'urn:x' } } } },
};

test('text from the document is escaped; only code spans become markup', () => {
  const page = renderDocsPage(DOCUMENT);
  assert.match(page, /<title>Cinema &lt;Test&gt; API reference<\/title>/);
  assert.match(page, /Uses <code>code<\/code> &amp; &lt;b&gt;markup&lt;\/b&gt;\./);
  assert.match(page, /— Get &lt;one&gt;<\/h3>/);
  assert.doesNotMatch(page, /<b>|<one>/);
});

test('operations link to the schemas they answer with, and schemas show their limits and XML names', () => {
  const page = renderDocsPage(DOCUMENT);
  assert.match(page, /<article class="operation" id="getFilm">/);
  assert.match(page, /<a href="#schema-Film">Film<\/a>/);
  assert.match(page, /<section id="schema-Film">/);
  assert.match(page, /string or null <small>\(from 1 to 64 characters\)<\/small>/);
  assert.match(page, /XML element <code>Film<\/code> in the namespace <code>urn:x<\/code>/);
  assert.match(page, /<code>id<\/code> <small>required<\/small>/);
});
