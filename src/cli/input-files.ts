import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../config.js';

/** Files named on the command line, with each directory replaced by its .json and .xml files. */
export async function expandInputs(inputs: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const input of inputs) {
    const isDirectory = await stat(input).then((s) => s.isDirectory(), () => false);
    if (!isDirectory) {
      files.push(input);
      continue;
    }
    const named = (await readdir(input)).filter((name) => /\.(json|xml)$/i.test(name)).sort();
    // A directory of such a name is no input: its files are not the import's.
    const isFile = await Promise.all(named.map((name) => stat(join(input, name)).then((s) => s.isFile(), () => true)));
    const names = named.filter((_, index) => isFile[index]);
    if (names.length === 0) throw new ConfigError(`import: ${input} holds no .json or .xml file`);
    files.push(...names.map((name) => join(input, name)));
  }
  return files;
}
