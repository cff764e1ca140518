/**
 * The plain fastify app the benchmark compares Marquee with: what a user would write instead of
 * Marquee to serve the same catalogue. It reads the generated catalogue's films.json and
 * filmpackages.json once at start into plain objects, and serialises each answer when it is asked
 * for, with fastify's default JSON serialisation (`reply.send(object)`, no response schema). It
 * logs one line per request at info through fastify's logger (pino), with the fields of Marquee's
 * line, instead of fastify's default two lines, so that both write the same log.
 *
 * With `--floor` it does the least a fastify app can do per request, the floor of any app on
 * fastify with a log line per request, Marquee included: each answer is serialised once at start
 * and sent as bytes, and the log goes through Marquee's own logger, which writes lines in batches.
 *
 *     node dist/bench/plain-fastify-app.js PORT CATALOGUE_DIRECTORY [--floor]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyReply } from 'fastify';
import { createLogger } from '../src/observability/logger.js';

interface Film {
  readonly Id: string;
  readonly DisplaySequence: number;
}

interface FilmPackage {
  readonly Id: number;
}

const [port, directory, mode] = process.argv.slice(2);
if (port === undefined || directory === undefined || (mode !== undefined && mode !== '--floor')) {
  console.error('usage: plain-fastify-app PORT CATALOGUE_DIRECTORY [--floor]');
  process.exit(2);
}
const floor = mode === '--floor';
/** An answer as the app keeps it: the record itself, serialised per request, or its bytes at the floor. */
const answer = (value: unknown): unknown => (floor ? Buffer.from(JSON.stringify(value)) : value);

const read = <T>(file: string): T[] => JSON.parse(readFileSync(join(directory, file), 'utf8')) as T[];
// The lists' order in the contract: films by DisplaySequence, then Id; packages by Id.
const films = read<Film>('films.json').sort((a, b) => a.DisplaySequence - b.DisplaySequence || (a.Id < b.Id ? -1 : a.Id > b.Id ? 1 : 0));
const packages = read<FilmPackage>('filmpackages.json').sort((a, b) => a.Id - b.Id);
const filmList = answer(films);
const packageList = answer(packages);
const filmsById = new Map(films.map((film) => [film.Id, answer(film)]));
const packagesById = new Map(packages.map((filmPackage) => [String(filmPackage.Id), answer(filmPackage)]));

/** fastify sends bytes as they are, but names them JSON only when it serialised them itself. */
const send = (reply: FastifyReply, value: unknown): FastifyReply => (floor ? reply.type('application/json; charset=utf-8').send(value) : reply.send(value));

/** A record, or the problem Marquee answers when there is none (RFC 9457), serialised per request. */
function found(reply: FastifyReply, record: unknown, detail: string): FastifyReply {
  return record === undefined ? reply.code(404).send({ type: 'about:blank', title: 'Not Found', status: 404, detail }) : send(reply, record);
}

const app = Fastify({
  ...(floor ? { loggerInstance: createLogger({ level: 'info' }) } : { logger: { level: 'info' } }),
  logController: new LogController({ disableRequestLogging: true }),
});
app.addHook('onResponse', (request, reply, done) => {
  request.log.info({ method: request.method, route: request.routeOptions.url, status: reply.statusCode, durationMs: reply.elapsedTime }, 'request completed');
  done();
});
app.get('/v4/film', async (_request, reply) => send(reply, filmList));
app.get<{ Params: { id: string } }>('/v4/film/:id', async (request, reply) => found(reply, filmsById.get(request.params.id), `No film has the id '${request.params.id}'.`));
app.get('/v1/filmpackage', async (_request, reply) => send(reply, packageList));
app.get<{ Params: { id: string } }>('/v1/filmpackage/:id', async (request, reply) =>
  found(reply, packagesById.get(request.params.id), `No film package has the id '${request.params.id}'.`),
);

await app.listen({ port: Number(port), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close());
