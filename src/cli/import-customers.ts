/**
 * `marquee import --customers-from DIR`: a catalogue per customer, each in a folder of DIR named
 * by its key. Customers are imported one after the other, each all or nothing through the one
 * import pipeline, so memory holds one customer at a time and a broken customer is reported and
 * left as it was while the others still import.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CUSTOMER_KEY_PATTERN, CUSTOMER_KEY_RULE } from '../catalogue/model.js';
import { problemLines, UnreadableInputError } from '../catalogue/problems.js';
import { ConfigError, type Settings } from '../config.js';
import { importFiles, InvalidImportError } from '../import/import-files.js';
import { commandLockWait, openCommandDatabase } from './command.js';
import { expandInputs } from './input-files.js';

export interface CustomersImportOptions {
  readonly directory: string;
  readonly replace: boolean;
  readonly dryRun: boolean;
}

/** About this many progress lines in a whole run, whatever the number of customers. */
const PROGRESS_LINES = 20;
/** Failed customers named in the summary; the rest are counted. */
const FAILURES_NAMED = 10;

/** The keys of the customers whose folders `directory` holds, in order; files beside them are ignored. */
async function customerFolders(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    throw new UnreadableInputError(directory, error.code === 'ENOENT' ? 'no such directory' : error.code === 'ENOTDIR' ? 'not a directory' : `cannot be read (${error.code})`);
  });
  const keys = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  const misnamed = keys.find((key) => !CUSTOMER_KEY_PATTERN.test(key));
  if (misnamed !== undefined) {
    throw new UnreadableInputError(directory, `the folder '${misnamed}' is not named by a customer key (${CUSTOMER_KEY_RULE})`);
  }
  if (keys.length === 0) throw new UnreadableInputError(directory, 'holds no customer folder');
  return keys;
}

/** Input a customer's import refuses: the customer is reported and the others go on. */
function isCustomerFailure(error: unknown): error is InvalidImportError | UnreadableInputError | ConfigError {
  return error instanceof InvalidImportError || error instanceof UnreadableInputError || error instanceof ConfigError;
}

function reportFailure(customer: string, error: InvalidImportError | UnreadableInputError | ConfigError): void {
  if (error instanceof InvalidImportError) {
    for (const line of problemLines(error.problems, error.problemCount, 'problems')) console.error(line);
    for (const line of problemLines(error.warnings, error.warningCount, 'warnings')) console.error(line);
  }
  console.error(`marquee: customer '${customer}': ${error.message}${error instanceof InvalidImportError ? '' : '; nothing was changed'}`);
}

/** Imports every customer of the tree; exit status 1 when any customer failed. */
export async function importCustomers(settings: Settings<'database' | 'lockTimeout' | 'maxProblems'>, options: CustomersImportOptions): Promise<number> {
  const customers = await customerFolders(options.directory);
  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  const every = Math.ceil(customers.length / PROGRESS_LINES);
  const failed: string[] = [];
  let films = 0;
  let packages = 0;
  const db = await openCommandDatabase(settings.database, { existing: options.dryRun, lockWait: commandLockWait(settings) });
  try {
    for (const [index, customer] of customers.entries()) {
      try {
        const folder = join(options.directory, customer);
        const result = await importFiles(db, {
          customer,
          files: await expandInputs([folder]),
          replace: options.replace,
          dryRun: options.dryRun,
          maxProblems: settings.maxProblems,
        });
        for (const line of problemLines(result.warnings, result.warningCount, 'warnings')) console.error(line);
        films += result.films.added + result.films.changed + result.films.unchanged;
        packages += result.packages.added + result.packages.changed + result.packages.unchanged;
      } catch (error) {
        if (!isCustomerFailure(error)) {
          console.error(`marquee: stopped at customer '${customer}', ${index} of ${customers.length} done`);
          throw error;
        }
        reportFailure(customer, error);
        failed.push(customer);
      }
      const done = index + 1;
      if (done % every === 0) {
        const time = seconds();
        console.error(
          `progress: ${done}/${customers.length} customers, ${films.toLocaleString('en')} films, ` +
            `${time.toFixed(1)} s, ${Math.round(done / Math.max(time, 0.001)).toLocaleString('en')} customers/s`,
        );
      }
    }
  } finally {
    await db.close();
  }
  const imported = customers.length - failed.length;
  const named = failed.slice(0, FAILURES_NAMED).join(', ') + (failed.length > FAILURES_NAMED ? ` and ${failed.length - FAILURES_NAMED} more` : '');
  console.log(
    `${options.dryRun ? 'Checked' : 'Imported'} ${imported} of ${customers.length} customers (${films.toLocaleString('en')} films, ` +
      `${packages.toLocaleString('en')} packages) from ${options.directory} in ${seconds().toFixed(2)} s` +
      (failed.length === 0 ? '.' : `; ${failed.length} failed, left as they were: ${named}.`),
  );
  return failed.length === 0 ? 0 : 1;
}
