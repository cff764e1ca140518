/**
 * What a server holds in memory per 1,000 films: generates catalogues of demo-like films, loads
 * each as a server does, and prints the memory it keeps. Two figures per size:
 *
 * - retained: heap and buffers still reachable after a full garbage collection, measured in this
 *   process around loading the catalogue (needs --expose-gc, which `npm run bench` passes);
 * - server RSS: the resident memory of a real `marquee serve` child once it listens with the
 *   catalogue loaded, less that of one serving an empty catalogue.
 *
 * Usage: npm run bench [-- --database postgres://…/scratch] [-- --films 1000,5000,20000]
 * The database must be one that may be overwritten: its default customer is replaced.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { XmlWriter } from '../src/formats/xml-writer.js';
import { importFiles } from '../src/import/import-files.js';
import { LiveCatalogue } from '../src/server/live-catalogue.js';
import { openDatabase, parseDatabaseSpec } from '../src/store/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench does)');
const collect = gc;

function retainedBytes(): number {
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

/** Resident memory, in bytes, of a server on `database` once it listens. */
async function serverRss(database: string): Promise<number> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'marquee.js'), 'serve', '--port', '0', '--database', database], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) if (/listening at/.test(line)) break;
  // Let start-up garbage settle before reading.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
  child.kill('SIGTERM');
  await once(child, 'exit');
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kilobytes * 1024;
}

const { values } = parseArgs({ options: { database: { type: 'string' }, films: { type: 'string', default: '1000,5000,20000' } } });
const work = await mkdtemp(join(tmpdir(), 'marquee-bench-'));
const database = values.database ?? join(work, 'bench.db');
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

try {
  const db = await openDatabase(parseDatabaseSpec(database));
  const empty = join(work, 'empty.json');
  await writeFile(empty, '[]');
  await importFiles(db, { customer: 'default', files: [empty], replace: true });
  const emptyRss = await serverRss(database);
  console.log(`A server on an empty catalogue: ${mib(emptyRss)} RSS.`);
  console.log(`films     retained    per 1,000 films   server RSS   RSS per 1,000 films   (database: ${parseDatabaseSpec(database).kind})`);
  for (const count of values.films.split(',').map(Number)) {
    const file = join(work, `films-${count}.json`);
    await writeFilms(file, count);
    await importFiles(db, { customer: 'default', files: [file], replace: true });
    const before = retainedBytes();
    const live = new LiveCatalogue(db, new XmlWriter());
    await live.refresh();
    const retained = retainedBytes() - before;
    if (live.published('default').filmCount !== count) throw new Error('the catalogue did not load');
    const rss = (await serverRss(database)) - emptyRss;
    console.log(
      `${String(count).padEnd(9)} ${mib(retained).padEnd(11)} ${mib((retained / count) * 1000).padEnd(17)} ${mib(rss).padEnd(12)} ${mib((rss / count) * 1000)}`,
    );
  }
  await db.close();
} finally {
  await rm(work, { recursive: true, force: true });
}
