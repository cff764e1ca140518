/**
 * The options of a developer script (the generator, the benchmarks), read as node:util's
 * parseArgs reads them: a flag the script does not know, or one without its value, ends it with a
 * line naming the flag and the script's usage rather than a stack trace.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export function scriptOptions<const T extends ParseArgsOptionsConfig>(options: T, usage: string): ReturnType<typeof parseArgs<{ options: T }>>['values'] {
  try {
    return parseArgs({ options }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
}
