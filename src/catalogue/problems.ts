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

/** Thrown for input that cannot be read at all (not JSON, not XML, unknown root element...). */
export class UnreadableInputError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'UnreadableInputError';
  }
}
