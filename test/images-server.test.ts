/**
 * Pictures kept and shared (CONTRACT §13) through `marquee serve` processes on one database:
 * servers give the same programme and the same bytes, the source read once for all of them; a
 * kept source is served after its host is gone and after a restart, within --image-cache; and
 * the picture settings are checked as the server starts.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { freshDatabase, runCli, serve, waitFor, type ServerProcess } from './helpers.js';
import { catalogueNaming, PICTURES_PROGRAMME, posterJpeg, sendBytes, startPictureHost, type PictureHost } from './picture-sources.js';

const TIMEOUT = { timeout: 120_000 };
/** How long a server may take to learn what another read: it looks every 2 s. */
const LEARN_MS = 20_000;

interface Image {
  readonly src: string;
  readonly srcset: string;
  readonly width: number | null;
}

let host: PictureHost;
let database: string;
let posterBytes: number;

async function programme(server: ServerProcess): Promise<{ readonly body: string; readonly etag: string | null; readonly posters: Image[] }> {
  const response = await fetch(`${server.url}${PICTURES_PROGRAMME}`);
  assert.equal(response.status, 200);
  const body = await response.text();
  const features = (JSON.parse(body) as { features: { images: { poster: Image } }[] }).features;
  return { body, etag: response.headers.get('etag'), posters: features.map((feature) => feature.images.poster) };
}

/** The address of `width` in a srcset. */
function at(image: Image, width: number): string {
  const entry = image.srcset.split(', ').find((candidate) => candidate.endsWith(` ${width}w`));
  return (entry as string).split(' ')[0] as string;
}

async function picture(server: ServerProcess, address: string): Promise<{ readonly status: number; readonly etag: string | null; readonly body: Buffer }> {
  const response = await fetch(`${server.url}/${address}`, { headers: { accept: 'image/webp,*/*' } });
  return { status: response.status, etag: response.headers.get('etag'), body: Buffer.from(await response.arrayBuffer()) };
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

before(async () => {
  const poster = await posterJpeg();
  posterBytes = poster.length;
  host = await startPictureHost({ '/poster.jpg': sendBytes(poster, 'image/jpeg'), '/second.jpg': sendBytes(poster, 'image/jpeg') });
  database = await freshDatabase();
  const imported = await runCli(['import', '--database', database, ...(await catalogueNaming([`${host.origin}/poster.jpg`, `${host.origin}/second.jpg`]))]);
  assert.equal(imported.status, 0, imported.stderr);
});

describe('marquee serve with pictures', () => {
  test('servers of one database give the same answers and bytes, read the source once, and serve what they keep after its host is gone and a restart', TIMEOUT, async () => {
    // Room for one source and a half: keeping the second lets the first go.
    const flags = ['--database', database, '--image-source', `${host.origin}/`, '--image-cache', String(Math.floor(posterBytes * 1.5))];
    const first = await serve(flags);
    const second = await serve(flags);
    const [poster, other] = (await programme(first)).posters as [Image, Image];
    const read = await picture(first, at(poster, 640));
    assert.equal(read.status, 200);

    await waitFor(async () => (await programme(second)).posters[0]?.width === 1340, LEARN_MS);
    await waitFor(async () => (await programme(first)).posters[0]?.width === 1340, LEARN_MS);
    const [one, two] = [await programme(first), await programme(second)];
    assert.equal(one.body, two.body, 'the same programme from both, the source\'s size in it');
    assert.equal(one.etag, two.etag);
    const shared = await picture(second, at(poster, 640));
    assert.equal(shared.etag, read.etag, 'the same ETag from both');
    assert.ok(shared.body.equals(read.body), 'the same bytes from both');
    assert.equal(host.asked.get('/poster.jpg'), 1, 'the source was read once for both');

    assert.equal((await picture(second, at(other, 320))).status, 200);
    await host.close();
    assert.equal((await picture(second, at(other, 160))).status, 200, 'served with its host gone');
    await Promise.all([stop(first), stop(second)]);

    const restarted = await serve(flags);
    assert.equal((await picture(restarted, at(other, 480))).status, 200, 'served after a restart, its host gone');
    assert.equal((await picture(restarted, at(poster, 480))).status, 502, 'let go to stay within --image-cache, and its host gone');
    assert.equal((await programme(restarted)).posters[0]?.width, 1340, 'its size is still known');
    assert.equal(host.asked.get('/second.jpg'), 1);
  });

  test('picture settings are checked as the server starts', TIMEOUT, async () => {
    for (const [flag, value] of [
      ['--image-source', 'ftp://images.example/'],
      ['--image-max-bytes', 'lots'],
      ['--image-cache', '0'],
      ['--image-timeout', '0'],
    ] as const) {
      const result = await runCli(['serve', '--database', database, flag, value]);
      assert.equal(result.status, 2, `${flag} ${value}`);
      assert.match(result.stderr, new RegExp(`${flag} .*got '${value}'`));
    }
  });
});
