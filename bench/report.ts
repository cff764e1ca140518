/**
 * Puts the figures of a results file into bench/README.md, between its figures markers, so that
 * the README shows exactly what a run measured:
 *
 *     node dist/bench/report.js bench/results/DATE-MACHINE.json
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResults, ScenarioResult } from './results.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = join(ROOT, 'bench', 'README.md');
const START = '<!-- figures: written by bench/report.ts from a results file; do not edit by hand -->';
const END = '<!-- end of figures -->';

const count = (value: number): string => Math.round(value).toLocaleString('en-US');
const ms = (value: number): string => `${value.toFixed(2)} ms`;
const mib = (value: number): string => `${value.toFixed(1)} MiB`;
const ratio = (value: number, [first, third]: readonly [number, number]): string => `${value.toFixed(2)} (${first.toFixed(2)}–${third.toFixed(2)})`;
const table = (header: readonly string[], align: string, rows: readonly (readonly string[])[]): string[] => [
  `| ${header.join(' | ')} |`,
  `|${align}|`,
  ...rows.map((row) => `| ${row.join(' | ')} |`),
];

/** The markdown of a run's figures. */
function renderFigures(results: BenchResults, file: string): string {
  const all = results.sizes.flatMap((size) => size.results);
  const against = (name: ScenarioResult['against']) => all.filter((result) => result.against === name);
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(', ');
  const scenario = (r: ScenarioResult) => (r.connections === results.connections && r.seconds === results.duration ? r.scenario : `${r.scenario} (${r.connections} connections, rounds of ${r.seconds} s)`);
  const lines = [
    `From \`${file}\`: ${results.date.slice(0, 16).replace('T', ' ')} UTC, ${results.machine}; ${results.rounds} rounds of ${results.duration} s, ` +
      `${results.connections} connections. Load average (1, 5, 15 min) ${load(results.loadAverage.start)} at the start, ${load(results.loadAverage.end)} at the end. ` +
      'Ratios are Marquee ÷ the other server, the median of the rounds with the quartiles in brackets.',
    '',
  ];
  /** Marquee against one other server; `p50` adds Marquee's median latency, as the ceiling's table shows it. */
  const comparison = (name: ScenarioResult['against'], title: string, other: string, p50: boolean): void => {
    const rows = against(name);
    if (rows.length === 0) return;
    const marquee = p50 ? ['requests/s', 'p50', 'p99'] : ['Marquee requests/s', 'Marquee p99'];
    const header = ['films', 'scenario', ...marquee, `${other} requests/s`, `${other} p99`, 'ratio in turn', 'ratio on a shared core'];
    const align = ['---:', '---', ...header.slice(2).map(() => '---:')].join('|');
    lines.push(`${title}:`, '');
    lines.push(
      ...table(
        header,
        align,
        rows.map((r) => [
          count(r.films),
          scenario(r),
          count(r.marquee.requestsPerSecond),
          ...(p50 ? [ms(r.marquee.p50Ms)] : []),
          ms(r.marquee.p99Ms),
          count(r.baseline.requestsPerSecond),
          ms(r.baseline.p99Ms),
          ratio(r.ratio, r.ratioQuartiles),
          ratio(r.sharedCore.ratio, r.sharedCore.quartiles),
        ]),
      ),
      '',
    );
  };
  comparison('plain fastify', 'Marquee ÷ plain fastify', 'plain fastify', false);
  comparison('fastify floor', 'Marquee ÷ the fastify floor', 'floor', false);
  comparison('ceiling', 'Marquee ÷ ceiling', 'ceiling', true);
  for (const size of results.sizes) {
    const reload = size.reload === undefined ? '' : `; replacing every film is in service ${count(size.reload.reloadMs)} ms after the server sees it, p99 under load meanwhile ${ms(size.reload.p99Ms)}, slowest request ${ms(size.reload.maxLatencyMs)}`;
    lines.push(`- ${count(size.films)} films: ready ${count(size.readyMs)} ms after start, ${size.rssMb.toFixed(1)} MB RSS once the catalogue is published${reload}.`);
  }
  const { programme } = results;
  if (programme !== undefined) {
    const { requestsPerSecond: rate, bytes, filter } = programme;
    lines.push(
      `- The demo cinema's 7-day programme (${count(programme.sessions)} sessions, ${count(bytes.programme)} bytes): ${count(rate.programme)} requests/s against ` +
        `${count(rate.webSessions)} for its web sessions (${count(bytes.webSessions)} bytes), ratio ${ratio(programme.ratio, programme.ratioQuartiles)}. ` +
        `A film filter's first answer takes the server ${filter.firstMs.toFixed(3)} ms, asked again ${filter.againMs.toFixed(3)} ms (medians over ${filter.films} films).`,
    );
    const { access } = programme;
    if (access !== undefined) {
      lines.push(
        `- The week kept to its captioned screenings (${count(access.bytes)} bytes): ${count(access.requestsPerSecond.filtered)} requests/s against ${count(access.requestsPerSecond.whole)} ` +
          `for the whole week, ratio ${ratio(access.ratio, access.ratioQuartiles)} (target: at least 0.5).`,
      );
    }
  }
  const { memory } = results;
  lines.push('', `Memory (database: ${memory.database}; a server on an empty catalogue: ${mib(memory.emptyServerRssMiB)} RSS):`, '');
  lines.push(
    ...table(
      ['films', 'retained after a full GC', 'per 1,000 films', 'counted against --cache-memory', 'server RSS above an empty server', 'per 1,000 films'],
      '---:|---:|---:|---:|---:|---:',
      memory.rows.map((row) => [
        count(row.films),
        mib(row.retainedMiB),
        mib((row.retainedMiB / row.films) * 1000),
        // Results from before the memory budget have no count.
        row.countedMiB === undefined ? '–' : mib(row.countedMiB),
        mib(row.serverRssMiB),
        mib((row.serverRssMiB / row.films) * 1000),
      ]),
    ),
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const [file] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: node dist/bench/report.js bench/results/FILE.json');
    process.exit(2);
  }
  const results = JSON.parse(await readFile(file, 'utf8')) as BenchResults;
  const readme = await readFile(README, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start) throw new Error(`${README} lacks the figures markers`);
  const figures = renderFigures(results, relative(ROOT, resolve(file)));
  await writeFile(README, `${readme.slice(0, start + START.length)}\n${figures}\n${readme.slice(end)}`);
  console.log(`figures of ${file} written into ${README}`);
}

await main();
