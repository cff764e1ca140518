import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEMO, freshDatabase, nonEmpty, ROOT, runCli, serve, tempDir, waitFor, type ServerProcess } from './helpers.js';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long a wait for an event may last on a busy machine; it ends as soon as the event comes. */
const DEADLINE_MS = 30_000;
const times = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));

/** A GET on a connection of its own, closed after the answer. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject).end();
  });
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Whether the server refuses new connections, as it does once it is shutting down. */
async function refused(port: number): Promise<boolean> {
  try {
    (await open(port)).destroy();
    return false;
  } catch (error) {
    // A connection the closing listener had queued is reset: not refused yet.
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ECONNRESET') return false;
    if (code === 'ECONNREFUSED') return true;
    throw error;
  }
}

/** What a server writes on a raw connection until it closes it, and when it did. */
function collect(socket: Socket): Promise<{ readonly text: string; readonly closedAt: number }> {
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  // A server that closes a connection with bytes still unread in it resets it: the client reads
  // the answer, then gets ECONNRESET. The answer is what counts.
  socket.on('error', () => {});
  return new Promise((resolve) => socket.once('close', () => resolve({ text, closedAt: Date.now() })));
}

/** A request in flight: its head sent but for its last line, which `finish` sends before reading the answer to the server's close. */
interface HeldRequest {
  finish(): Promise<Answer>;
}

/** Starts a request on a connection of its own and holds it in flight, for as long as the test needs. */
async function heldRequest(port: number, path: string): Promise<HeldRequest> {
  const socket = await open(port);
  const received = collect(socket);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/xml\r\n`);
  return {
    finish: async () => {
      socket.write('\r\n');
      return answerOf(await received);
    },
  };
}

function answerOf({ text }: { readonly text: string }): Answer {
  const [statusLine = '', ...rest] = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
  const headers = Object.fromEntries(rest.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

/**
 * A catalogue of 100 films whose film list (about 10 MB) is far more than the socket buffers
 * hold, so its answer stays in flight while the client does not read.
 */
async function bigCatalogue(): Promise<string> {
  const [film] = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as Record<string, unknown>[];
  const films = times(100, (index) => ({ ...film, Id: `BIG-${index}`, DisplaySequence: index, Synopsis: `${index} `.repeat(50_000) }));
  const seed = join(await tempDir(), 'big.json');
  await writeFile(seed, JSON.stringify(films));
  return seed;
}

interface LoadFigures {
  readonly sent: number;
  readonly answered: number;
  /** Requests written on a connection that closed before answering them. */
  readonly lost: number;
  /** Connections that ended after an answer carrying `Connection: close`. */
  readonly closedAfterAnswer: number;
}

/**
 * `connections` keep-alive connections, each sending its next GET as soon as the last is
 * answered, as a load generator does, until the server closes them or refuses new ones.
 */
function keepAliveLoad(port: number, connections: number, path: string): { readonly answered: number; readonly ended: Promise<LoadFigures> } {
  const figures = { sent: 0, answered: 0, lost: 0, closedAfterAnswer: 0 };
  const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      let pending = Buffer.alloc(0);
      let waiting = false;
      let closing = false;
      const send = (): void => {
        figures.sent += 1;
        waiting = true;
        socket.write(request);
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        for (;;) {
          const end = pending.indexOf('\r\n\r\n');
          if (end === -1) return;
          const head = pending.subarray(0, end).toString('latin1');
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (pending.length < end + 4 + length) return;
          pending = pending.subarray(end + 4 + length);
          figures.answered += 1;
          waiting = false;
          if (/\r\nconnection: close/i.test(head)) closing = true;
          else send();
        }
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        if (waiting) figures.lost += 1;
        if (closing) figures.closedAfterAnswer += 1;
        resolve();
      });
    });
  const ended = Promise.all(times(connections, one)).then(() => ({ ...figures }));
  return {
    get answered() {
      return figures.answered;
    },
    ended,
  };
}

describe('graceful shutdown', () => {
  test('SIGTERM stops accepting, lets the requests in flight finish, and exits 0', async () => {
    const server = await serve(['--database', await freshDatabase(), '--seed', DEMO]);
    // Requests whose heads are held back until the server is shutting down: in flight when the signal comes.
    const slow = await Promise.all(times(4, () => heldRequest(server.port, '/v4/film')));
    const readiness = await heldRequest(server.port, '/readyz');
    // Answered while those are held, and so after the server has taken their connections.
    for (const answer of await Promise.all(times(30, () => get(server.port, '/v1/filmpackage')))) assert.equal(answer.status, 200);
    server.child.kill('SIGTERM');
    await waitFor(() => server.logs.some((entry) => entry['msg'] === 'shutting down'), DEADLINE_MS);
    await waitFor(() => refused(server.port), DEADLINE_MS);

    for (const answer of await Promise.all(slow.map((request) => request.finish()))) {
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['connection'], 'close', 'a connection answered during the drain is closed after its answer');
      assert.match(answer.body, /^<ArrayOfFilm [^>]*>.*<\/ArrayOfFilm>$/s);
      assert.equal(Buffer.byteLength(answer.body), Number(answer.headers['content-length']));
    }
    const notReady = await readiness.finish();
    assert.equal(notReady.status, 503, 'a server shutting down is not ready');
    assert.match(notReady.body, /<detail>The server is shutting down\.<\/detail>/);
    assert.equal(await server.exited, 0);
    assert.ok(server.logs.some((entry) => entry['msg'] === 'stopped'));
    const warnings = server.logs.filter((entry) => (entry['level'] as number) >= 40 && !String(entry['msg']).startsWith('no access token exists'));
    assert.deepEqual(warnings, [], 'nothing went wrong on the way');
  });

  test('SIGTERM under keep-alive load loses no request: each one sent is answered, the last on each connection with Connection: close', async () => {
    const server = await serve(['--database', await freshDatabase(), '--seed', DEMO]);
    const load = keepAliveLoad(server.port, 64, '/v1/filmpackage/1');
    await waitFor(() => load.answered > 2000, 20_000);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    const { sent, answered, lost, closedAfterAnswer } = await load.ended;
    assert.equal(lost, 0, `${lost} of ${sent} requests were sent and never answered`);
    assert.equal(answered, sent);
    assert.equal(closedAfterAnswer, 64, 'every connection was closed by an answer saying so');
  });

  test('SIGTERM as the reader of its log goes away (Ctrl-C on `marquee serve | jq` stops both) still ends the process', async () => {
    const database = await freshDatabase();
    // With no request in flight a server stops within milliseconds, its last lines still to be
    // written, and whether a batch of its log met the closed pipe before is up to the moment:
    // three servers make it all but certain that one did not.
    for (let round = 0; round < 3; round++) {
      const server = await serve(['--database', database, '--seed', DEMO]);
      for (const answer of await Promise.all(times(20, () => get(server.port, '/v1/filmpackage/1')))) assert.equal(answer.status, 200);
      server.child.stdout?.destroy();
      server.child.kill('SIGTERM');
      const ended = await Promise.race([server.exited, delay(8000).then(() => 'still running 8 s after SIGTERM')]);
      assert.equal(ended, 0);
    }
  });

  test('a slow download in progress at SIGTERM completes, and the server exits right after it', async () => {
    // A keep-alive connection left open after the answer would hold the server for a minute.
    const server = await serve(['--database', await freshDatabase(), '--seed', await bigCatalogue(), '--keep-alive-timeout', '60000']);

    const socket = await open(server.port);
    const chunks: Buffer[] = [];
    const closed = once(socket, 'close');
    socket.on('data', (chunk: Buffer) => {
      // The client stops reading after the first chunk, as a slow one would.
      if (chunks.length === 0) socket.pause();
      chunks.push(chunk);
    });
    socket.write('GET /v4/film HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await waitFor(() => chunks.length > 0, DEADLINE_MS);
    server.child.kill('SIGTERM');
    await waitFor(() => server.logs.some((entry) => entry['msg'] === 'shutting down'), DEADLINE_MS);
    await waitFor(() => refused(server.port), DEADLINE_MS);
    assert.equal(server.child.exitCode, null, 'the server waits for the download');

    socket.resume();
    await closed;
    const closedAt = Date.now();
    const answer = Buffer.concat(chunks).toString('utf8');
    const length = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(answer)?.[1]);
    assert.ok(length > 8_000_000, `a large answer: ${length} bytes`);
    assert.equal(Buffer.byteLength(answer.slice(answer.indexOf('\r\n\r\n') + 4)), length, 'the whole body arrived');
    assert.equal((JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown[]).length, 100);
    assert.equal(await server.exited, 0);
    assert.ok(Date.now() - closedAt < DEADLINE_MS, 'the keep-alive connection was not kept open after its answer');
    const warnings = server.logs.filter((entry) => (entry['level'] as number) >= 40 && !String(entry['msg']).startsWith('no access token exists'));
    assert.deepEqual(warnings, []);
  });

  test('a client that leaves an answer unread for --idle-timeout is cut off, while a reading one gets the whole answer', async () => {
    const server = await serve(['--database', await freshDatabase(), '--seed', await bigCatalogue(), '--idle-timeout', '300']);
    // The first request publishes the catalogue, which may take longer than this short timeout
    // with nothing sent: asked again until it is held.
    await waitFor(async () => (await get(server.port, '/v4/film').catch(() => undefined))?.status === 200, 30_000);
    const whole = await get(server.port, '/v4/film');
    assert.equal(whole.status, 200, 'a client that reads gets its answer, however long it takes beyond the idle timeout');

    const socket = await open(server.port);
    const chunks: Buffer[] = [];
    const closed = once(socket, 'close');
    socket.on('error', () => {});
    socket.write('GET /v4/film HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    // Not read for five times the idle timeout, then read to the end.
    socket.pause();
    await delay(1500);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.resume();
    await closed;
    const received = Buffer.concat(chunks).toString('utf8');
    const body = received.slice(received.indexOf('\r\n\r\n') + 4);
    assert.match(received, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(Buffer.byteLength(body) < Buffer.byteLength(whole.body), `the answer was cut: ${Buffer.byteLength(body)} of ${Buffer.byteLength(whole.body)} bytes`);
    assert.equal((await get(server.port, '/healthz')).status, 200, 'the server goes on answering');
  });

  test('--shutdown-timeout cuts a request that does not finish in time, and the server still exits 0', async () => {
    // Nothing else cuts the request within a minute.
    const server = await serve(['--database', await freshDatabase(), '--seed', DEMO, '--shutdown-timeout', '300', '--request-timeout', '60000', '--headers-timeout', '60000']);
    const stuck = await open(server.port);
    const cut = collect(stuck);
    stuck.write('GET /v4/film HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await delay(100);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    const took = Date.now() - signalled;
    assert.ok(took >= 250 && took < DEADLINE_MS, `exited ${took} ms after the signal`);
    assert.ok((await cut).closedAt - signalled < DEADLINE_MS);
    assert.ok(server.logs.some((entry) => /shutdown timeout/.test(String(entry['msg'])) && entry['level'] === 40));
  });
});

describe('every request gets an answer', () => {
  test('odd targets, methods and heads are answered: escapes in fixed segments, absolute form, CONNECT, no Host, an unknown expectation', async () => {
    const server = await serve(['--database', await freshDatabase(), '--seed', DEMO]);
    const exchange = async (request: string): Promise<string> => {
      const socket = await open(server.port);
      const received = collect(socket);
      socket.write(request);
      return (await received).text;
    };
    const answerTo = async (target: string): Promise<string> => {
      const text = await exchange(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      return text.slice(0, text.indexOf('\r\n'));
    };
    for (const target of ['/v4/%66ilm', '/v%34/film/HO00000101', '/%76%34/film', '/v4/film/%', '*']) {
      assert.match(await answerTo(target), /^HTTP\/1\.1 (200|404) /, target);
    }
    assert.equal(await answerTo(`http://127.0.0.1:${server.port}/v4/film/HO00000101`), 'HTTP/1.1 200 OK', 'absolute form is routed by its path');
    assert.equal(await answerTo('http://cinema.example/v1/filmpackage/1?format=xml'), 'HTTP/1.1 200 OK');

    // Node would drop CONNECT's connection, and answer the other two with an empty body.
    const connectAnswer = await exchange('CONNECT cinema.example:443 HTTP/1.1\r\nHost: cinema.example:443\r\n\r\n');
    assert.match(connectAnswer, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    assert.match(connectAnswer, /"detail":"CONNECT is not allowed here; use GET or HEAD\."\}$/);
    for (const host of ['', 'Host: \r\n']) {
      const answer = await exchange(`GET /v1/screen HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/, JSON.stringify(host));
      assert.match(answer, /"detail":"An HTTP\/1\.1 request names its host in a Host header\."\}$/, JSON.stringify(host));
    }
    assert.match(await exchange('GET /healthz HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 OK\r\n/, 'HTTP/1.0 has no Host');
    assert.match(await exchange('GET /whats-on HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 400 Bad Request\r\n[^]*links to itself by the host the request names/, 'the page needs a host to link to');
    assert.match(await exchange('GET /v1/screen/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\nConnection: close\r\n\r\n'), /^HTTP\/1\.1 200 OK\r\n/);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });
});

describe('a hardened server', () => {
  let server: ServerProcess;
  const tokenHeaders = { VeeziAccessToken: 'secret-veezi-token', Authorization: 'Bearer secret-bearer-token' };

  before(async () => {
    server = await serve([
      '--database', await freshDatabase(),
      '--seed', DEMO,
      '--log-level', 'trace',
      '--headers-timeout', '500',
      '--request-timeout', '1000',
      '--keep-alive-timeout', '300',
      '--max-requests-per-socket', '3',
      '--max-header-size', '2048',
    ]);
  });

  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });

  test('slowloris clients are cut off after the headers timeout while other requests keep succeeding', async () => {
    const slowClients = times(20, async () => {
      const socket = await open(server.port);
      const received = collect(socket);
      const opened = Date.now();
      socket.write(`GET /v4/film HTTP/1.1\r\nHost: 127.0.0.1\r\nVeeziAccessToken: ${tokenHeaders.VeeziAccessToken}\r\nX-Slow: `);
      // One byte every 50 ms, never finishing the headers.
      const dripping = setInterval(() => socket.writable && socket.write('a'), 50);
      const { text, closedAt } = await received;
      clearInterval(dripping);
      return { text, heldMs: closedAt - opened };
    });

    // Requests one after another for as long as the slow clients hold on: every one is answered.
    let cut = false;
    const slowClientsCut = Promise.all(slowClients).finally(() => (cut = true));
    let answered = 0;
    const deadline = Date.now() + DEADLINE_MS;
    while (!cut && Date.now() < deadline) {
      const answer = await get(server.port, '/v4/film/HO00000101', tokenHeaders);
      assert.equal(answer.status, 200);
      answered += 1;
    }
    assert.ok(answered >= 1, 'requests were answered while the slow clients held on');

    for (const { text, heldMs } of await slowClientsCut) {
      // Never before the timeout; after it, as soon as a busy machine gets round to it.
      assert.ok(heldMs >= 450, `a slow client was cut after ${heldMs} ms`);
      assert.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.match(text, /Content-Type: application\/problem\+json; charset=utf-8\r\n/);
      assert.match(text, /\r\n\r\n\{"type":"about:blank","title":"Request Timeout","status":408,"detail":"The request did not arrive in time\."\}$/);
    }
    const metrics = await get(server.port, '/metrics');
    assert.match(metrics.body, /^marquee_http_connections_cut_total\{status="408"\} 20$/m);
  });

  test('headers larger than --max-header-size answer 431 with a problem', async () => {
    const socket = await open(server.port);
    const received = collect(socket);
    socket.write(`GET /v4/film HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${tokenHeaders.Authorization}\r\nX-Big: ${'b'.repeat(3000)}\r\n\r\n`);
    const { text } = await received;
    assert.match(text, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    assert.match(text, /"status":431/);
    assert.equal((await get(server.port, '/v4/film', { 'X-Fits': 'b'.repeat(1000) })).status, 200);
  });

  test('a keep-alive connection closes after --max-requests-per-socket answers, or after --keep-alive-timeout idle', async () => {
    const socket = await open(server.port);
    const received = collect(socket);
    let text = '';
    socket.on('data', (chunk: string) => (text += chunk));
    for (let index = 1; index <= 3; index++) {
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await waitFor(() => (text.match(/\{"status":"alive"\}/g) ?? []).length === index, DEADLINE_MS);
    }
    const { text: all } = await received;
    assert.deepEqual(all.match(/^Connection: \S+/gim), ['Connection: keep-alive', 'Connection: keep-alive', 'Connection: close']);

    const idle = await open(server.port);
    const closed = collect(idle);
    idle.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const answeredAt = Date.now();
    const { closedAt } = await closed;
    // Closed by the 300 ms of the flag: not before, and long before the default's 5 s.
    assert.ok(closedAt - answeredAt >= 250 && closedAt - answeredAt < 4500, `idle for ${closedAt - answeredAt} ms`);
  });

  test('no token ever reaches the log, whatever the request', async () => {
    const tokens = [tokenHeaders.VeeziAccessToken, 'secret-bearer-token', 'secret-query-token'];
    await get(server.port, '/v4/film/HO00000101', tokenHeaders);
    await get(server.port, '/v4/film/NOPE?access_token=secret-query-token', tokenHeaders);
    await get(server.port, '/nowhere?token=secret-query-token', tokenHeaders);
    const malformed = await open(server.port);
    const done = collect(malformed);
    malformed.write(`GET /v4/film?access_token=secret-query-token HTTP/1.1\r\nHost: 127.0.0.1\r\nVeeziAccessToken: ${tokenHeaders.VeeziAccessToken}\r\nBroken header\r\n\r\n`);
    assert.match((await done).text, /^HTTP\/1\.1 400 Bad Request/);
    // The last request's line comes after every line before it.
    const healthLines = () => server.logs.filter((entry) => entry['route'] === '/healthz').length;
    const before = healthLines();
    await get(server.port, '/healthz');
    await waitFor(() => healthLines() > before, 2000);

    const log = server.output.join('\n');
    assert.ok(server.logs.some((entry) => entry['route'] === '/v4/film/:id' && entry['status'] === 404), 'the requests were logged');
    assert.ok(server.logs.some((entry) => entry['msg'] === 'connection cut' && entry['status'] === 400), 'so were the connections cut');
    for (const token of tokens) {
      assert.ok(!log.includes(token), `${token} is not in the log`);
      // Not even as the bytes of a logged buffer, such as the raw packet of a client error.
      assert.ok(!log.includes([...Buffer.from(token)].join(',')), `${token} is not in the log as bytes`);
    }
  });
});

interface ReadmeSetting {
  /** The flag with its value's name, `--port N`. */
  readonly flag: string;
  readonly variable: string;
  /** The default where the README gives one as a literal value. */
  readonly fallback: string | undefined;
}

/**
 * The settings of `serve` as README.md's configuration table describes them, a row's flags,
 * variables and defaults paired in order: rows that name other commands only are left out.
 */
async function readmeServeSettings(): Promise<ReadmeSetting[]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const table = /^## Configuration\n[\s\S]*?\n(\| Flag \|[\s\S]*?)\n\n/m.exec(readme)?.[1] ?? '';
  const codes = (cell: string): string[] => [...cell.matchAll(/`([^`]*)`/g)].map((match) => (match[1] ?? '').replace(/\\\|/g, '|'));
  const settings: ReadmeSetting[] = [];
  for (const row of table.split('\n').slice(2)) {
    const [flags = '', variables = '', defaults = '', meaning = ''] = row.split(/(?<!\\)\|/).slice(1, -1);
    const commands = /^\s*\(([a-z, ]+)\)/.exec(meaning)?.[1];
    if (commands !== undefined && !commands.split(', ').includes('serve')) continue;
    const [variableList, defaultList] = [codes(variables), codes(defaults)];
    codes(flags).forEach((flag, index) => {
      const fallback = defaultList[index];
      settings.push({ flag, variable: variableList[index] ?? '', fallback: fallback === undefined || fallback.startsWith('--') ? undefined : fallback });
    });
  }
  return settings;
}

describe('serve settings', () => {
  test('every setting of serve in the README\'s configuration table is a flag and an environment variable, --help lists each with its default, and no other', async () => {
    const help = await runCli(['serve', '--help']);
    assert.equal(help.status, 0);
    const settings = nonEmpty(await readmeServeSettings(), 'serve setting in the README');
    for (const { flag, variable, fallback } of settings) {
      assert.ok(variable !== '', `${flag} has an environment variable in the README`);
      // The README writes `…_BURST` for a variable that shares the one before it's prefix.
      const env = variable.startsWith('…') ? `MARQUEE\\w*${variable.slice(1)}` : variable;
      const shown = fallback === undefined ? '(; default .*)?' : `; default ${fallback.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
      assert.match(help.stdout, new RegExp(`^  ${flag.replace(/[|]/g, '\\|')} .*\\(env ${env}\\)${shown}$`, 'm'), flag);
    }
    const named = new Set(settings.map(({ flag }) => flag.split(' ')[0]));
    const listed = [...help.stdout.matchAll(/^ {2}(--[\w-]+)/gm)].map((match) => match[1]).filter((flag) => !['--seed', '--seed-today', '--help'].includes(flag ?? ''));
    assert.deepEqual(listed.filter((flag) => !named.has(flag)), [], 'every flag of serve --help is in the README\'s table');
  });

  test('a bad value stops serve with one line naming the flag or variable, exit status 2', async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['--headers-timeout', 'soon'], {}, /^marquee: --headers-timeout must be an integer from 1 to 3600000, got 'soon'$/],
      [[], { MARQUEE_REQUEST_TIMEOUT: '0' }, /^marquee: MARQUEE_REQUEST_TIMEOUT must be an integer from 1 to 3600000, got '0'$/],
      [[], { MARQUEE_IDLE_TIMEOUT: '1.5' }, /^marquee: MARQUEE_IDLE_TIMEOUT must be an integer/],
      [['--keep-alive-timeout', '0'], {}, /^marquee: --keep-alive-timeout must be an integer from 1 to 3600000, got '0'$/],
      [[], { MARQUEE_MAX_REQUESTS_PER_SOCKET: 'lots' }, /^marquee: MARQUEE_MAX_REQUESTS_PER_SOCKET must be an integer from 0/],
      [['--max-header-size', '100'], {}, /^marquee: --max-header-size must be an integer from 1024 to 1048576, got '100'$/],
      [[], { MARQUEE_SHUTDOWN_TIMEOUT: 'never' }, /^marquee: MARQUEE_SHUTDOWN_TIMEOUT must be an integer from 0/],
      [['--headers-timeout', '5000', '--request-timeout', '1000'], {}, /^marquee: --headers-timeout \(MARQUEE_HEADERS_TIMEOUT\) must be at most --request-timeout \(1000\), got '5000'$/],
    ];
    for (const [args, env, expected] of cases) {
      const result = await runCli(['serve', '--database', await freshDatabase(), ...args], env);
      assert.equal(result.status, 2, args.join(' ') || JSON.stringify(env));
      assert.match(result.stderr.trim(), expected);
      assert.equal(result.stderr.trim().split('\n').length, 1);
    }
  });
});
