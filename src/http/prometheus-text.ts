/**
 * The Prometheus text exposition format (version 0.0.4): metric families with their HELP and TYPE
 * lines, then one sample per line. Small enough to write by hand, and it keeps every label string
 * built once, when a series first appears, rather than on each request.
 */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';

/** A label set as it appears between braces: `route="/v4/film",status="200"`. */
export function labels(pairs: Readonly<Record<string, string | number>>): string {
  return Object.entries(pairs)
    .map(([name, value]) => `${name}="${String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

export class PrometheusText {
  private text = '';

  /** Starts a family; its samples follow. */
  family(name: string, type: MetricType, help: string): this {
    this.text += `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;
    return this;
  }

  sample(name: string, labelSet: string, value: number): this {
    this.text += `${name}${labelSet === '' ? '' : `{${labelSet}}`} ${formatValue(value)}\n`;
    return this;
  }

  /**
   * The samples of one histogram series: cumulative `_bucket` counts for each upper bound and
   * `+Inf`, then `_sum` and `_count`. `counts` holds the observations per bucket, not cumulated.
   */
  histogram(name: string, labelSet: string, bounds: readonly number[], counts: ArrayLike<number>, sum: number, count: number): this {
    const prefix = labelSet === '' ? '' : `${labelSet},`;
    let cumulative = 0;
    bounds.forEach((bound, index) => {
      cumulative += counts[index] ?? 0;
      this.sample(`${name}_bucket`, `${prefix}le="${bound}"`, cumulative);
    });
    this.sample(`${name}_bucket`, `${prefix}le="+Inf"`, count);
    return this.sample(`${name}_sum`, labelSet, sum).sample(`${name}_count`, labelSet, count);
  }

  toString(): string {
    return this.text;
  }
}
