/**
 * The ceiling: a bare node:http server that answers every request with one fixed response,
 * the very bytes and headers Marquee sends for a scenario. Nothing in Node.js answers faster.
 *
 *     node dist/bench/ceiling-server.js RESPONSE.json PORT
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

export interface CapturedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyBase64: string;
}

const [file, port] = process.argv.slice(2);
if (file === undefined || port === undefined) {
  console.error('usage: ceiling-server RESPONSE.json PORT');
  process.exit(2);
}
const captured = JSON.parse(readFileSync(file, 'utf8')) as CapturedResponse;
const body = Buffer.from(captured.bodyBase64, 'base64');
const server = createServer((request, response) => {
  response.writeHead(captured.status, captured.headers);
  response.end(request.method === 'HEAD' ? undefined : body);
});
// Fastify's default, so both servers keep connections alive alike.
server.keepAliveTimeout = 72_000;
server.listen(Number(port), '127.0.0.1', () => console.log('ready'));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
