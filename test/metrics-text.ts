/** Reading `/metrics` in tests: the Prometheus text exposition, parsed strictly. */
import assert from 'node:assert/strict';

/** One sample of a Prometheus text exposition. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * Reads a Prometheus text exposition strictly: every sample belongs to a family announced by
 * HELP and TYPE lines, every line has the right form, and no series appears twice.
 */
export function parseMetrics(text: string): { readonly samples: Sample[]; readonly types: ReadonlyMap<string, string> } {
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  assert.ok(text.endsWith('\n'), 'the exposition ends with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    // Empty lines are allowed between families, and ignored.
    if (line === '') continue;
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$/.exec(line);
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary)$/.exec(line);
    if (help?.[1]) helped.add(help[1]);
    else if (type?.[1] && type[2]) types.set(type[1], type[2]);
    else {
      const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|\+Inf|[Nn]a[Nn])$/.exec(line);
      assert.ok(sample?.[1] && sample[3], `a well-formed sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const pair of (sample[2] ?? '').match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? []) {
        const at = pair.indexOf('=');
        labels[pair.slice(0, at)] = pair.slice(at + 2, -1);
      }
      const family = sample[1].replace(/_(bucket|sum|count)$/, '');
      const name = types.has(sample[1]) ? sample[1] : family;
      assert.ok(types.has(name) && helped.has(name), `${sample[1]} follows HELP and TYPE lines`);
      assert.ok(!seen.has(line.slice(0, line.lastIndexOf(' '))), `one sample per series: ${line}`);
      seen.add(line.slice(0, line.lastIndexOf(' ')));
      samples.push({ name: sample[1], labels, value: Number(sample[3].replace('+Inf', 'Infinity')) });
    }
  }
  return { samples, types };
}

export function find(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
  return samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

export function value(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const matching = find(samples, name, labels);
  assert.ok(matching.length <= 1, `one ${name} ${JSON.stringify(labels)}`);
  return matching[0]?.value;
}
