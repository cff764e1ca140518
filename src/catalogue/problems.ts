/** What an import found wrong, with enough context for the operator to find it in the file. */
export interface Problem {
  readonly file: string;
  /** 1-based position of the record in its file. */
  readonly record: number;
  readonly id: string | undefined;
  /** Wire path of the field, such as `People[2].Role`; empty for the record as a whole. */
  readonly field: string;
  readonly rule: string;
  readonly value: string;
}

export function formatProblem(problem: Problem): string {
  const subject = problem.id === undefined ? '' : ` (id ${JSON.stringify(problem.id)})`;
  const field = problem.field ? ` ${problem.field}:` : '';
  return `${problem.file}: record ${problem.record}${subject}:${field} ${problem.rule}, got ${problem.value}`;
}

/** How many problems an import lists unless told otherwise; a broken file may hold millions. */
export const DEFAULT_MAX_PROBLEMS = 1000;

/** Problems as they are found: every one counted, the first `limit` kept to be listed. */
export class ProblemList {
  readonly listed: Problem[] = [];
  count = 0;

  constructor(private readonly limit: number) {}

  add(problem: Problem): void {
    this.count++;
    if (this.listed.length < this.limit) this.listed.push(problem);
  }
}

/** One line per listed problem, then one for those counted but not listed: `… and 999,000 more problems`. */
export function problemLines(listed: readonly Problem[], count: number, noun: 'problems' | 'warnings'): string[] {
  const prefix = noun === 'warnings' ? 'warning: ' : '';
  const lines = listed.map((problem) => prefix + formatProblem(problem));
  const unlisted = count - listed.length;
  if (unlisted > 0) lines.push(`${prefix}… and ${unlisted.toLocaleString('en-US')} more ${unlisted === 1 ? noun.slice(0, -1) : noun}`);
  return lines;
}

/** Thrown for input that cannot be read at all (not JSON, not XML, unknown root element...). */
export class UnreadableInputError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'UnreadableInputError';
  }

  /** The refusal of `file`, which the file system refused with `error`. */
  static of(file: string, error: unknown): UnreadableInputError {
    const code = (error as NodeJS.ErrnoException).code;
    return new UnreadableInputError(file, code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`);
  }
}
