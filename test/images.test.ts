/**
 * Pictures (CONTRACT §13) through HTTP: the programme hands out a poster's renditions, served in
 * the format Accept prefers at each width of the ladder, and nothing at any other address; every
 * kind of bad source, started here on loopback, answers a problem and is read within its limits;
 * a loopback source is refused, and never connected to, unless --image-source names it.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import sharp from 'sharp';
import { startTestApp, type TestApp } from './helpers.js';
import {
  bombPng,
  catalogueNaming,
  endless,
  PICTURES_PROGRAMME,
  posterJpeg,
  redirectTo,
  sendBytes,
  silent,
  startPictureHost,
  transparentPng,
  type PictureHost,
} from './picture-sources.js';

const TIMEOUT = { timeout: 120_000 };
const MAX_BYTES = 1024 * 1024;
const IMAGE_TIMEOUT_MS = 1000;
const AVIF_FIRST = 'image/avif,image/webp,image/apng,*/*;q=0.8';

interface Image {
  readonly src: string;
  readonly srcset: string;
  readonly width: number | null;
  readonly height: number | null;
}

type Feature = { readonly title: string; readonly images: { readonly poster: Image | null; readonly backdrop: Image | null } };

/** Each film's poster in the programme, by the path of its source. */
async function posters(t: TestApp): Promise<Map<string, Image>> {
  const response = await t.app.inject({ url: PICTURES_PROGRAMME });
  assert.equal(response.statusCode, 200);
  const features = (response.json() as { features: Feature[] }).features;
  return new Map(
    features.map((feature) => {
      const poster = feature.images.poster as Image;
      const source = Buffer.from(poster.src.split('/')[1] as string, 'base64url').toString();
      return [new URL(source).pathname, poster];
    }),
  );
}

/** The address of each width in a srcset. */
function widths(image: Image): Map<number, string> {
  return new Map(image.srcset.split(', ').map((entry) => {
    const [address, width] = entry.split(' ') as [string, string];
    return [Number(width.slice(0, -1)), address];
  }));
}

let host: PictureHost;
let trap: PictureHost;
let t: TestApp;
let poster: Buffer;

before(async () => {
  poster = await posterJpeg();
  // Where a redirect to a private address leads: it must never be connected to.
  trap = await startPictureHost({ '/poster.jpg': sendBytes(poster, 'image/jpeg') });
  host = await startPictureHost({
    '/poster.jpg': sendBytes(poster, 'image/jpeg'),
    '/transparent.png': sendBytes(await transparentPng(), 'image/png'),
    '/huge.jpg': sendBytes(Buffer.concat([poster.subarray(0, 4), Buffer.alloc(MAX_BYTES)]), 'image/jpeg'),
    '/endless.jpg': endless,
    '/slow.jpg': silent,
    '/bomb.png': sendBytes(bombPng(), 'image/png'),
    '/picture.svg': sendBytes(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'), 'image/svg+xml'),
    '/page.html': sendBytes(Buffer.from('<!doctype html><title>Not a picture</title>'), 'image/jpeg'),
    '/to-private.jpg': redirectTo(`${trap.origin}/poster.jpg`),
    '/three-redirects.jpg': redirectTo('/r2'),
    '/r2': redirectTo('/r3'),
    '/r3': redirectTo('/poster.jpg'),
    '/four-redirects.jpg': redirectTo('/three-redirects.jpg'),
    // Its header reads; the rest of the picture is not there.
    '/cut-short.jpg': sendBytes(poster.subarray(0, Math.floor(poster.length / 2)), 'image/jpeg'),
    // An escape that decodes to no text: no seed file's path, but the host's.
    '/poster%zz.jpg': sendBytes(poster, 'image/jpeg'),
  });
  const paths = [
    ...['/poster.jpg', '/transparent.png', '/huge.jpg', '/endless.jpg', '/slow.jpg', '/bomb.png', '/picture.svg', '/page.html', '/to-private.jpg', '/three-redirects.jpg'],
    ...['/four-redirects.jpg', '/missing.jpg', '/cut-short.jpg', '/poster%zz.jpg'],
  ];
  t = await startTestApp(await catalogueNaming(paths.map((path) => `${host.origin}${path}`)), {
    images: { sources: [`${host.origin}/`], timeoutMs: IMAGE_TIMEOUT_MS, maxBytes: MAX_BYTES },
  });
});

describe('pictures', () => {
  test('a poster is handed out at each width of the ladder and served in the format Accept prefers, resized, for a year', TIMEOUT, async () => {
    const before = (await posters(t)).get('/poster.jpg') as Image;
    assert.deepEqual([before.width, before.height], [null, null], 'its size is not known before it is read');
    assert.deepEqual([...widths(before).keys()], [160, 320, 480, 640, 960, 1280]);
    assert.equal(before.src, widths(before).get(320));

    const avif = await t.app.inject({ url: `/${before.src}`, headers: { accept: AVIF_FIRST } });
    assert.equal(avif.statusCode, 200, avif.body);
    assert.equal(avif.headers['content-type'], 'image/avif');
    assert.equal(avif.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(avif.headers['vary']), /\bAccept\b/);
    assert.match(String(avif.headers['etag']), /^"[\w-]+"$/, 'a strong ETag');
    const metadata = await sharp(avif.rawPayload).metadata();
    assert.equal(metadata.format, 'heif');
    assert.equal(metadata.width, 320);
    assert.ok(Math.abs((metadata.height as number) - (320 * 1920) / 1340) <= 1, `the source's proportions: ${metadata.height}`);

    const webp = await t.app.inject({ url: `/${before.src}`, headers: { accept: 'image/webp,*/*' } });
    assert.equal(webp.headers['content-type'], 'image/webp');
    const jpeg = await t.app.inject({ url: `/${before.src}`, headers: { accept: '*/*' } });
    assert.equal(jpeg.headers['content-type'], 'image/jpeg');
    assert.equal((await sharp(jpeg.rawPayload).metadata()).width, 320);
    assert.notEqual(webp.headers['etag'], jpeg.headers['etag']);

    const again = await t.app.inject({ url: `/${before.src}`, headers: { accept: AVIF_FIRST } });
    assert.equal(again.headers['etag'], avif.headers['etag']);
    assert.ok(again.rawPayload.equals(avif.rawPayload), 'the same bytes each time');
    const revalidated = await t.app.inject({ url: `/${before.src}`, headers: { accept: AVIF_FIRST, 'if-none-match': String(avif.headers['etag']) } });
    assert.equal(revalidated.statusCode, 304);
    assert.equal(revalidated.body, '');
    const head = await t.app.inject({ method: 'HEAD', url: `/${before.src}`, headers: { accept: AVIF_FIRST } });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['etag'], avif.headers['etag']);

    const widest = await t.app.inject({ url: `/${widths(before).get(1280)}`, headers: { accept: '*/*' } });
    assert.equal((await sharp(widest.rawPayload).metadata()).width, 1280);

    const after = (await posters(t)).get('/poster.jpg') as Image;
    assert.deepEqual([after.width, after.height], [1340, 1920], 'once read, the source\'s size');
    assert.equal(host.asked.get('/poster.jpg'), 1, 'the source is read once');
    assert.equal((await t.app.inject({ method: 'POST', url: `/${before.src}` })).statusCode, 405);
  });

  test('only the addresses handed out answer, and nothing is read for any other', TIMEOUT, async () => {
    const image = (await posters(t)).get('/transparent.png') as Image;
    const [, source, width, signature] = image.src.split('/') as [string, string, string, string];
    const other = Buffer.from(`${host.origin}/poster.jpg?x`).toString('base64url');
    // Base64url letters that Node's decoder would read as the same bytes: the last letter's unused bits, padding, the other alphabet.
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sameBits = letters[letters.indexOf(signature.at(-1) as string) ^ 1] as string;
    for (const address of [
      `images/${source}/${width}/${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`,
      `images/${source}/${width}/${signature.slice(0, -1)}${sameBits}`,
      `images/${source}/${width}/${signature}==`,
      `images/${source}=/${width}/${signature}`,
      `images/${source}/${width}/${signature.replaceAll('-', '%2B').replaceAll('_', '%2F')}${signature.includes('-') || signature.includes('_') ? '' : '='}`,
      `images/${source}/640/${signature}`,
      `images/${source}/321/${signature}`,
      `images/${other}/${width}/${signature}`,
      `images/${Buffer.from('http://169.254.169.254/latest/meta-data').toString('base64url')}/${width}/${signature}`,
    ]) {
      const response = await t.app.inject({ url: `/${address}` });
      assert.equal(response.statusCode, 404, address);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    }
    assert.equal(host.asked.get('/transparent.png'), undefined, 'the source was not read');
    assert.equal(host.asked.get('/poster.jpg?x'), undefined);
  });

  test('a picture with transparency is sent as PNG to a browser that takes neither AVIF nor WebP', TIMEOUT, async () => {
    const image = (await posters(t)).get('/transparent.png') as Image;
    const png = await t.app.inject({ url: `/${image.src}`, headers: { accept: 'image/png,image/*' } });
    assert.equal(png.statusCode, 200);
    assert.equal(png.headers['content-type'], 'image/png');
    assert.equal((await sharp(png.rawPayload).metadata()).hasAlpha, true);
    const after = (await posters(t)).get('/transparent.png') as Image;
    assert.deepEqual([...widths(after).keys()], [160, 320], 'no width wider than the source');
  });

  test('a source that cannot be read answers a problem, read within its limits', TIMEOUT, async () => {
    const images = await posters(t);
    for (const [path, status] of [
      ['/huge.jpg', 502],
      ['/endless.jpg', 502],
      ['/slow.jpg', 502],
      ['/bomb.png', 502],
      ['/picture.svg', 502],
      ['/page.html', 502],
      ['/to-private.jpg', 502],
      ['/four-redirects.jpg', 502],
      ['/missing.jpg', 404],
      ['/cut-short.jpg', 502],
    ] as const) {
      const started = performance.now();
      const response = await t.app.inject({ url: `/${(images.get(path) as Image).src}` });
      assert.equal(response.statusCode, status, `${path}: ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/, path);
      assert.equal(response.headers['cache-control'], undefined, `${path}: a problem is not kept a year`);
      // The slow source's deadline is the whole read's: it answers once the timeout has passed, not later.
      if (path === '/slow.jpg') assert.ok(performance.now() - started >= IMAGE_TIMEOUT_MS, `${path} waited for the timeout`);
      assert.equal(host.asked.get(path), 1, `${path} was asked for once`);
      // A source that failed is not asked for again at once, whoever asks.
      assert.equal((await t.app.inject({ url: `/${(images.get(path) as Image).src}` })).statusCode, status);
      assert.equal(host.asked.get(path), 1, `${path} is not asked for again at once`);
    }
    assert.equal(trap.connections, 0, 'the redirect to an address --image-source does not name was never followed');
    const three = await t.app.inject({ url: `/${(images.get('/three-redirects.jpg') as Image).src}` });
    assert.equal(three.statusCode, 200, 'three redirects are followed');
    const escaped = await t.app.inject({ url: `/${(images.get('/poster%zz.jpg') as Image).src}` });
    assert.equal(escaped.statusCode, 200, 'a path no seed file can have is read from its host');
  });

  test('a loopback source is refused, and never connected to, unless --image-source names it', TIMEOUT, async () => {
    const closed = await startTestApp(await catalogueNaming([`${trap.origin}/poster.jpg`]));
    const image = (await posters(closed)).get('/poster.jpg') as Image;
    const response = await closed.app.inject({ url: `/${image.src}` });
    assert.equal(response.statusCode, 502);
    assert.equal(trap.connections, 0);
  });
});

describe('the page around the posters', () => {
  test('robots.txt lets crawlers read the page', TIMEOUT, async () => {
    const robots = await t.app.inject({ url: '/robots.txt' });
    assert.equal(robots.statusCode, 200);
    assert.equal(robots.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(robots.body, /^User-agent: \*\nAllow: \/\n$/);
  });
});
