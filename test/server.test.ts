import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { DEMO, MARQUEE, ROOT, freshDatabase, runCli, tempDir } from './helpers.js';

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  readonly logs: Record<string, unknown>[];
}

/** Starts `marquee serve` on a free port and waits for it to say where it listens. */
async function serve(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const child = spawn(process.execPath, [MARQUEE, 'serve', '--port', '0', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const logs: Record<string, unknown>[] = [];
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(String(entry['msg']));
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url, logs };
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

test('serve answers on a real port, follows imports, and stops cleanly on SIGTERM', async () => {
  const database = await freshDatabase();
  const server = await serve(['--database', database, '--seed', DEMO], { MARQUEE_XML_NAMESPACE: 'urn:example:cinema' });
  try {
    const xml = await fetch(`${server.url}/v1/filmpackage`, { headers: { accept: 'application/xml' } });
    assert.equal(xml.status, 200);
    assert.equal(xml.headers.get('content-type'), 'application/xml; charset=utf-8');
    assert.match(await xml.text(), /^<ArrayOfFilmPackage xmlns:i="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance" xmlns="urn:example:cinema"><FilmPackage>/);
    assert.ok(server.logs.some((entry) => entry['msg'] === 'seeded the empty catalogue'));

    const film = await (await fetch(`${server.url}/v4/film/HO00000101`)).json() as Record<string, unknown>;
    const file = join(await tempDir(), 'retitled.json');
    await writeFile(file, JSON.stringify({ ...film, Title: 'Nosferatu (restored)' }));
    const imported = await runCli(['import', '--database', database, file]);
    assert.equal(imported.status, 0, imported.stderr);
    await waitFor(async () => {
      const current = await (await fetch(`${server.url}/v4/film/HO00000101`)).json() as Record<string, unknown>;
      return current['Title'] === 'Nosferatu (restored)';
    }, 2000);
  } finally {
    server.child.kill('SIGTERM');
  }
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0);
});

test('a second start with --seed keeps the catalogue it already has', async () => {
  const database = await freshDatabase();
  const file = join(await tempDir(), 'one.json');
  const films = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as unknown[];
  await writeFile(file, JSON.stringify(films[0]));
  assert.equal((await runCli(['import', '--database', database, file])).status, 0);
  const server = await serve(['--database', database, '--seed', DEMO]);
  try {
    const list = await (await fetch(`${server.url}/v4/film`)).json() as unknown[];
    assert.equal(list.length, 1);
  } finally {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  }
});
