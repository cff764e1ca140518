/**
 * The programme scenario of `npm run bench`: a server holding the demo cinema, its sessions moved
 * to start today as `npm start` moves them, answers its 7-day `/programme` and `/v1/websession` in
 * turn, rounds of each, the ratio being the median of each round's own. First, what a filter
 * costs: the server's own time for its first answer to each of the demo's films (the selection and
 * its writing) against the same answer asked again, which the programme keeps until the clock
 * changes it. Then the week kept to the captioned screenings (`access=captioned`, CONTRACT §15)
 * against the whole week, rounds of each: the access terms are read once per catalogue, so a
 * filtered answer costs what any kept answer does.
 */
import { join } from 'node:path';
import { capture, MARQUEE_PORT, median, quantile, ROOT, sleep, startMarquee, stop, wrk, type Rounds, type Scenario } from './harness.js';
import type { ProgrammeResult } from './results.js';

const WEEK: Scenario = { name: 'programme, 7 days', path: '/programme', headers: {} };
const WEB_SESSIONS: Scenario = { name: 'web sessions', path: '/v1/websession', headers: {} };
const CAPTIONED: Scenario = { name: 'programme, 7 days, captioned', path: '/programme?access=captioned', headers: {} };

async function get(path: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${MARQUEE_PORT}${path}`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
}

export async function benchProgramme(work: string, settings: Rounds): Promise<ProgrammeResult> {
  const server = await startMarquee(join(work, 'programme.db'), join(work, 'server-programme.log'), ['--seed', join(ROOT, 'demo'), '--seed-today']);
  try {
    const body = async (scenario: Scenario): Promise<Buffer> => Buffer.from((await capture(MARQUEE_PORT, scenario)).bodyBase64, 'base64');
    const [week, webSessions] = [await body(WEEK), await body(WEB_SESSIONS)];
    const sessions = (JSON.parse(week.toString('utf8')) as { features: { sessions: unknown[] }[] }).features.flatMap((feature) => feature.sessions).length;

    // Each film's fortnight twice: the first answer is selected and written, the second kept.
    const films = ((await (await fetch(`http://127.0.0.1:${MARQUEE_PORT}/v4/film`)).json()) as { Id: string }[]).map((film) => film.Id);
    for (const film of films) for (let time = 0; time < 2; time++) await get(`/programme?days=14&sessions=all&film=${encodeURIComponent(film)}`);
    // The log leaves in batches at most 50 ms apart.
    await sleep(500);
    const filtered = (await server.logged('request completed')).filter((line) => line['route'] === '/programme').slice(-2 * films.length);
    const durations = (parity: number): number[] => filtered.filter((_, index) => index % 2 === parity).map((line) => Number(line['durationMs']));

    for (const scenario of [WEEK, WEB_SESSIONS]) await wrk(MARQUEE_PORT, scenario, 1, settings.connections);
    const run = (scenario: Scenario): Promise<number> => wrk(MARQUEE_PORT, scenario, settings.duration, settings.connections).then((figures) => figures.requestsPerSecond);
    const rates: { programme: number; web: number }[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      // Every other round the web sessions go first, so that a drift within a round favours neither.
      if (round % 2 === 0) rates.push({ programme: await run(WEEK), web: await run(WEB_SESSIONS) });
      else rates.push({ web: await run(WEB_SESSIONS), programme: await run(WEEK) });
    }
    const ratios = rates.map(({ programme, web }) => programme / web);

    await wrk(MARQUEE_PORT, CAPTIONED, 1, settings.connections);
    const accessRates: { filtered: number; whole: number }[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      if (round % 2 === 0) accessRates.push({ filtered: await run(CAPTIONED), whole: await run(WEEK) });
      else accessRates.push({ whole: await run(WEEK), filtered: await run(CAPTIONED) });
    }
    const accessRatios = accessRates.map(({ filtered, whole }) => filtered / whole);
    const access = {
      bytes: (await body(CAPTIONED)).length,
      requestsPerSecond: { filtered: median(accessRates.map(({ filtered }) => filtered)), whole: median(accessRates.map(({ whole }) => whole)) },
      ratio: median(accessRatios),
      ratioQuartiles: [quantile(accessRatios, 0.25), quantile(accessRatios, 0.75)] as const,
    };
    const result: ProgrammeResult = {
      sessions,
      bytes: { programme: week.length, webSessions: webSessions.length },
      requestsPerSecond: { programme: median(rates.map(({ programme }) => programme)), webSessions: median(rates.map(({ web }) => web)) },
      ratio: median(ratios),
      ratioQuartiles: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
      roundRatios: ratios,
      filter: { films: films.length, firstMs: median(durations(0)), againMs: median(durations(1)) },
      access,
    };
    console.log(
      `programme: 7 days (${sessions} sessions, ${week.length} bytes) ${result.requestsPerSecond.programme.toFixed(0)} req/s, web sessions (${webSessions.length} bytes) ` +
        `${result.requestsPerSecond.webSessions.toFixed(0)} req/s, ratio ${result.ratio.toFixed(2)} (quartiles ${result.ratioQuartiles.map((q) => q.toFixed(2)).join('-')}); ` +
        `a film filter's first answer ${result.filter.firstMs.toFixed(3)} ms in the server, asked again ${result.filter.againMs.toFixed(3)} ms (median of ${films.length} films)`,
    );
    console.log(
      `programme kept to the captioned screenings (${access.bytes} bytes): ${access.requestsPerSecond.filtered.toFixed(0)} req/s against ${access.requestsPerSecond.whole.toFixed(0)} for the whole week, ` +
        `ratio ${access.ratio.toFixed(2)} (quartiles ${access.ratioQuartiles.map((q) => q.toFixed(2)).join('-')}; the target is at least 0.5)`,
    );
    return result;
  } finally {
    await stop(server.process);
  }
}
