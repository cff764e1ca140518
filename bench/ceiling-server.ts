/**
 * The ceiling: a bare node:http server that answers every request with one fixed response,
 * the very bytes and headers Marquee sends for a scenario. Nothing in Node.js answers faster.
 * One process serves every scenario of a run, each on its own port (PORT, PORT + 1, …), so that
 * it lives as long as the Marquee server it is compared with.
 *
 *     node dist/bench/ceiling-server.js PORT RESPONSE.json [RESPONSE.json …]
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';

export interface CapturedResponse {
  readonly status: number;
  /** Those Node's server does not write itself. */
  readonly headers: Readonly<Record<string, string>>;
  /** The Keep-Alive header, such as `timeout=5, max=10000`, which Node writes from the server's settings. */
  readonly keepAlive: string | undefined;
  readonly bodyBase64: string;
}

function serve(captured: CapturedResponse, port: number): Promise<Server> {
  const body = Buffer.from(captured.bodyBase64, 'base64');
  const server = createServer((request, response) => {
    response.writeHead(captured.status, captured.headers);
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  // Marquee's own settings, so that both servers keep connections alive alike and Node writes
  // the same Keep-Alive header.
  const keepAlive = captured.keepAlive ?? '';
  const timeoutSeconds = /timeout=(\d+)/.exec(keepAlive)?.[1] ?? '5';
  const maxRequests = /max=(\d+)/.exec(keepAlive)?.[1] ?? '0';
  server.keepAliveTimeout = Number(timeoutSeconds) * 1000;
  server.maxRequestsPerSocket = Number(maxRequests);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

const [port, ...files] = process.argv.slice(2);
if (port === undefined || files.length === 0) {
  console.error('usage: ceiling-server PORT RESPONSE.json [RESPONSE.json …]');
  process.exit(2);
}
const servers = await Promise.all(files.map((file, index) => serve(JSON.parse(readFileSync(file, 'utf8')) as CapturedResponse, Number(port) + index)));
console.log('ready');
process.once('SIGTERM', () => {
  for (const server of servers) server.close();
  for (const server of servers) server.closeAllConnections();
});
