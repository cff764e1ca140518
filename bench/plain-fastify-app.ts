/**
 * The plain fastify app the benchmark compares Marquee with: what a user would write instead of
 * Marquee to serve the same catalogue. It reads the generated catalogue's films.json and
 * filmpackages.json once at start into plain objects, and serialises each answer when it is asked
 * for, with fastify's default JSON serialisation (`reply.send(object)`, no response schema). It
 * logs one line per request at info through fastify's logger (pino), with the fields of Marquee's
 * line, instead of fastify's default two lines, so that both write the same log.
 *
 *     node dist/bench/plain-fastify-app.js PORT CATALOGUE_DIRECTORY
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyReply } from 'fastify';

interface Film {
  readonly Id: string;
  readonly DisplaySequence: number;
}

interface FilmPackage {
  readonly Id: number;
}

const [port, directory] = process.argv.slice(2);
if (port === undefined || directory === undefined) {
  console.error('usage: plain-fastify-app PORT CATALOGUE_DIRECTORY');
  process.exit(2);
}

const read = <T>(file: string): T[] => JSON.parse(readFileSync(join(directory, file), 'utf8')) as T[];
// The lists' order in the contract: films by DisplaySequence, then Id; packages by Id.
const films = read<Film>('films.json').sort((a, b) => a.DisplaySequence - b.DisplaySequence || (a.Id < b.Id ? -1 : a.Id > b.Id ? 1 : 0));
const packages = read<FilmPackage>('filmpackages.json').sort((a, b) => a.Id - b.Id);
const filmsById = new Map(films.map((film) => [film.Id, film]));
const packagesById = new Map(packages.map((filmPackage) => [String(filmPackage.Id), filmPackage]));

function found<T>(reply: FastifyReply, record: T | undefined, detail: string): T | FastifyReply {
  return record ?? reply.code(404).send({ title: 'Not Found', status: 404, detail });
}

const app = Fastify({ logger: { level: 'info' }, logController: new LogController({ disableRequestLogging: true }) });
app.addHook('onResponse', (request, reply, done) => {
  request.log.info({ method: request.method, route: request.routeOptions.url, status: reply.statusCode, durationMs: reply.elapsedTime }, 'request completed');
  done();
});
app.get('/v4/film', async () => films);
app.get<{ Params: { id: string } }>('/v4/film/:id', async (request, reply) => found(reply, filmsById.get(request.params.id), `No film has the id '${request.params.id}'.`));
app.get('/v1/filmpackage', async () => packages);
app.get<{ Params: { id: string } }>('/v1/filmpackage/:id', async (request, reply) =>
  found(reply, packagesById.get(request.params.id), `No film package has the id '${request.params.id}'.`),
);

await app.listen({ port: Number(port), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close());
