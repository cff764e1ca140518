/**
 * What a server holds in memory per 1,000 films: generates catalogues of demo-like films, loads
 * each as a server does, and measures the memory it keeps. Two figures per size:
 *
 * - retained: heap and buffers still reachable after a full garbage collection, measured in this
 *   process around loading the catalogue (needs --expose-gc, which `npm run bench` passes);
 * - server RSS: the resident memory of a real `marquee serve` child once it has answered every
 *   list (which publishes the whole catalogue), less that of one serving an empty catalogue.
 *
 * Beside them, what the server counts against its memory budget (`--cache-memory`) for the catalogue.
 *
 * `npm run bench` runs it last (its `--memory-films` and `--memory-database`). The database must
 * be one that may be overwritten: its default customer is replaced.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { COLLECTION_NAMES } from '../src/formats/published-catalogue.js';
import { XmlWriter } from '../src/formats/xml-writer.js';
import { importFiles } from '../src/import/import-files.js';
import { LiveCatalogue } from '../src/server/live-catalogue.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function retainedBytes(collect: () => void): number {
  collect();
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** `count` films cycled from the demo catalogue, each with its own id, title and sequence. */
async function writeFilms(file: string, count: number): Promise<void> {
  const demo = JSON.parse(await readFile(join(ROOT, 'demo', 'films.json'), 'utf8')) as Record<string, unknown>[];
  const films = Array.from({ length: count }, (_, i) => {
    const template = demo[i % demo.length] as Record<string, unknown>;
    return { ...template, Id: `BENCH${String(i).padStart(7, '0')}`, Title: `${String(template['Title'])} ${i}`, DisplaySequence: i };
  });
  await writeFile(file, JSON.stringify(films));
}

/** Every list of a catalogue: asked once, they have it published whole. */
const LISTS = ['/v4/film', '/v1/film', '/v1/filmpackage', '/v1/screen', '/v1/attribute', '/v1/session'];

/** Resident memory, in bytes, of a server on `database` once it has answered every list. */
async function serverRss(database: string): Promise<number> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'marquee.js'), 'serve', '--port', '0', '--database', database], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const url = /listening at (http:\/\/[^"]+)/.exec(line)?.[1];
    if (url === undefined) continue;
    for (const list of LISTS) await (await fetch(`${url}${list}`)).arrayBuffer();
    break;
  }
  // Let start-up garbage settle before reading.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
  child.kill('SIGTERM');
  await once(child, 'exit');
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kilobytes * 1024;
}

export interface MemoryRow {
  readonly films: number;
  /** Heap and buffers still reachable after a full garbage collection, added by loading the catalogue. */
  readonly retainedMiB: number;
  /** What the server counts against its memory budget for the catalogue; absent from results older than the budget. */
  readonly countedMiB: number;
  /** The resident memory of a server with the catalogue, less that of one serving an empty catalogue. */
  readonly serverRssMiB: number;
}

export interface MemoryResult {
  readonly database: string;
  readonly emptyServerRssMiB: number;
  readonly rows: readonly MemoryRow[];
}

const mib = (bytes: number): number => bytes / 2 ** 20;

/** Measures each catalogue size on `databaseSpec`, or on a SQLite file of its own when undefined. */
export async function measureMemory(sizes: readonly number[], databaseSpec: string | undefined): Promise<MemoryResult> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with node --expose-gc (npm run bench does)');
  const work = await mkdtemp(join(tmpdir(), 'marquee-memory-'));
  const database = databaseSpec ?? join(work, 'bench.db');
  try {
    const db = await openDatabase(parseDatabaseSpec(database));
    const empty = join(work, 'empty.json');
    await writeFile(empty, '[]');
    await importFiles(db, { customer: 'default', files: [empty], replace: true });
    const emptyRss = await serverRss(database);
    const rows: MemoryRow[] = [];
    for (const count of sizes) {
      const file = join(work, `films-${count}.json`);
      await writeFilms(file, count);
      await importFiles(db, { customer: 'default', files: [file], replace: true });
      const before = retainedBytes(collect);
      const live = new LiveCatalogue(db, new XmlWriter(), { budgetBytes: Infinity });
      await live.refresh();
      const published = await live.published('default');
      for (const name of COLLECTION_NAMES) await published.part(name);
      const retained = retainedBytes(collect) - before;
      if (published.counts.films !== count) throw new Error('the catalogue did not load');
      rows.push({ films: count, retainedMiB: mib(retained), countedMiB: mib(published.bytes), serverRssMiB: mib((await serverRss(database)) - emptyRss) });
    }
    await db.close();
    return { database: parseDatabaseSpec(database).kind, emptyServerRssMiB: mib(emptyRss), rows };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
