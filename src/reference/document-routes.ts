/**
 * Where people and programs read the document: `/openapi.json`, and `/docs`, Swagger UI showing
 * that document, where each operation can be tried with a token in JSON or XML. Every asset of
 * the page is served from here; its content security policy lets it load nothing from elsewhere.
 */
import { createHash } from 'node:crypto';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { Representation } from '../formats/representation.js';
import { sendAnswer } from '../http/respond.js';

const DOCUMENT_PATH = '/openapi.json';
const DOCS_PATH = '/docs';

/**
 * The one inline style Swagger UI writes: the colours of its logo in the top bar, shown until
 * the plugin puts its own logo there.
 */
const LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';

/**
 * Swagger UI's scripts and styles are files of this server, its pictures too or `data:` URLs
 * (its icons), and it calls this server alone. No inline script, no eval, no inline style but
 * the logo's. The plugin's own policy (`staticCSP: true`) would allow styles and fonts from any
 * https origin.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' 'sha256-${createHash('sha256').update(LOGO_STYLE).digest('base64')}'`,
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The plugin serves the document at `/docs/json` and `/docs/yaml` too; they answer as unknown
 * paths, so that the document has one address, the one Swagger UI reads.
 */
const hideDocumentCopies: onRequestAsyncHookHandler = async (request, reply) => {
  const route = request.routeOptions.url;
  // Returning the reply tells fastify it is answered.
  if (route === `${DOCS_PATH}/json` || route === `${DOCS_PATH}/yaml`) return reply.callNotFound();
  return undefined;
};

/** `/openapi.json`, built once from the document on first request, and `/docs`. */
export function registerDocumentRoutes(app: FastifyInstance): void {
  let document: Representation | undefined;

  app.get(
    DOCUMENT_PATH,
    {
      schema: {
        summary: 'OpenAPI document',
        description: `This document: OpenAPI 3.1, generated from the schemas the routes declare. \`${DOCS_PATH}\` shows it in Swagger UI, where each operation can be tried.`,
        operationId: 'openApiDocument',
        tags: ['Operations'],
        response: { 200: { description: 'The OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    (request, reply) => {
      document ??= new Representation(Buffer.from(JSON.stringify(app.swagger())));
      // It changes only with the server's version: a client that has it revalidates for a 304.
      return sendAnswer(request, reply, document, 'application/json; charset=utf-8', 'no-cache');
    },
  );

  void app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
    uiHooks: { onRequest: hideDocumentCopies },
    theme: { title: 'Marquee API reference' },
    uiConfig: {
      // The plugin points Swagger UI at its own address of the document; a list of documents
      // takes the place of that address.
      urls: [{ url: DOCUMENT_PATH, name: 'Marquee' }],
      // Swagger UI's own default sends the document's address to validator.swagger.io for a badge.
      validatorUrl: null,
      displayRequestDuration: true,
    },
  });
}
