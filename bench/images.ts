/**
 * `npm run bench -- --images`: what pictures cost (CONTRACT §13). A server holds the demo cinema
 * (`--seed`), each of its posters a picture of about 6 MB (1340×1920) read from the seed's
 * directory, the server pinned to core 0 as in every scenario. It reads each source once, then
 * times renditions one at a time: cold (resized on request) and warm (kept in memory), at four
 * widths in each format. Then it asks for 200 cold renditions at once while wrk, on core 1, asks
 * for one film (`/v4/film/{id}`) with 4 connections, against the same film alone: resizing must
 * never hold up other answers.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heavyPosterJpeg } from '../scripts/heavy-poster.js';
import { MARQUEE_PORT, median, ROOT, startMarquee, stop, wrk, type Scenario } from './harness.js';

const BURST = 200;
const FILM: Scenario = { name: 'one film', path: '/v4/film/HO00000101', headers: {} };
const FORMATS = { avif: 'image/avif,image/webp,*/*', webp: 'image/webp,*/*', jpeg: '*/*' } as const;
const TIMED_WIDTHS = [160, 320, 640, 1280];
/** The demo's posters' host and folder, as its films name them. */
const POSTERS = join('images', 'images.marquee.example', 'posters');

/** The time of one request for `address` in `format`, in milliseconds. */
async function timed(address: string, accept: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${MARQUEE_PORT}/${address}`, { headers: { accept } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${address} answered ${response.status}`);
  return performance.now() - started;
}

/** The demo as a seed whose every poster is `poster`. */
async function heavySeed(directory: string, poster: Buffer): Promise<void> {
  const demo = join(ROOT, 'demo');
  await mkdir(directory);
  for (const name of (await readdir(demo)).filter((file) => file.endsWith('.json'))) await copyFile(join(demo, name), join(directory, name));
  await mkdir(join(directory, POSTERS), { recursive: true });
  for (const name of await readdir(join(demo, POSTERS))) await writeFile(join(directory, POSTERS, name), poster);
}

export async function benchImages(options: { readonly seconds: number }): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'marquee-bench-images-'));
  const poster = await heavyPosterJpeg();
  const seed = join(work, 'seed');
  await heavySeed(seed, poster);
  // Renditions wait their turn longer than the default idle timeout allows when 200 are asked at once.
  const server = await startMarquee(join(work, 'images.db'), join(work, 'server.log'), ['--seed', seed, '--seed-today', '--idle-timeout', '600000']);
  try {
    const programme = (await (await fetch(`http://127.0.0.1:${MARQUEE_PORT}/programme?days=62&sessions=all`)).json()) as { features: { kind: string; images: { poster: { srcset: string } | null } }[] };
    const ladders = programme.features
      .filter((feature) => feature.kind === 'film' && feature.images.poster !== null)
      .map(({ images }) => new Map((images.poster as { srcset: string }).srcset.split(', ').map((entry) => [Number(entry.split(' ')[1]?.slice(0, -1)), entry.split(' ')[0] as string])));
    const address = (source: number, width: number): string => ladders[source]?.get(width) as string;

    const reads = [];
    for (let source = 0; source < ladders.length; source++) reads.push(await timed(address(source, 160), FORMATS.jpeg));
    console.log(`${ladders.length} sources of ${(poster.length / 1e6).toFixed(1)} MB, read and first rendition (160 px, JPEG): median ${median(reads).toFixed(0)} ms`);

    console.log('rendition of one source, cold / warm, ms:');
    for (const [format, accept] of Object.entries(FORMATS)) {
      const cells = [];
      for (const width of TIMED_WIDTHS) cells.push(`${width} px ${(await timed(address(0, width), accept)).toFixed(0)} / ${(await timed(address(0, width), accept)).toFixed(1)}`);
      console.log(`  ${format.padEnd(5)} ${cells.join(', ')}`);
    }

    const alone = await wrk(MARQUEE_PORT, FILM, options.seconds, 4);
    // Widths and formats of the other sources, none made yet, the smallest first, as pages ask.
    const cold = [160, 320, 480, 640, 960, 1280].flatMap((width) => Object.values(FORMATS).flatMap((accept) => ladders.slice(1).map((ladder) => ({ path: ladder.get(width) as string, accept })))).slice(0, BURST);
    const started = performance.now();
    let done = 0;
    const burst = Promise.all(cold.map(({ path, accept }) => timed(path, accept).then(() => done++)));
    const during = await wrk(MARQUEE_PORT, FILM, options.seconds, 4);
    const madeDuringWrk = done;
    await burst;
    const burstSeconds = (performance.now() - started) / 1000;
    console.log(`one film alone: p50 ${alone.p50Ms.toFixed(2)} ms, p99 ${alone.p99Ms.toFixed(2)} ms, ${alone.requestsPerSecond.toFixed(0)} requests/s`);
    console.log(
      `one film while ${cold.length} cold renditions are asked at once: p50 ${during.p50Ms.toFixed(2)} ms, p99 ${during.p99Ms.toFixed(2)} ms, max ${during.maxMs.toFixed(1)} ms, ${during.requestsPerSecond.toFixed(0)} requests/s ` +
        `(${madeDuringWrk} made in its ${options.seconds} s; all ${cold.length} in ${burstSeconds.toFixed(1)} s)`,
    );
  } finally {
    await stop(server.process);
    await rm(work, { recursive: true, force: true });
  }
}
