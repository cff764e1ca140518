/** What every command shares: its flags, parsed strictly, and its help text. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, SETTINGS, describeSettings, helpLine, type SettingName, type Settings } from '../config.js';
import { NoDatabaseError, openDatabase, type DatabaseSpec, type OpenOptions } from '../store/database.js';
import type { LockWait, SqlClient } from '../store/sql-client.js';

export interface CommandSpec {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  readonly settings: readonly SettingName[];
  /** Settings that must be given as a flag: their default would be a guess. */
  readonly required?: readonly SettingName[];
  /** Flags beyond the settings, such as `--replace`. */
  readonly flags?: Readonly<Record<string, CommandFlag>>;
  readonly positionals?: boolean;
}

export interface CommandFlag {
  readonly type: 'boolean' | 'string';
  readonly description: string;
  /** The flag may be given more than once; its value is then the list of those given. */
  readonly multiple?: true;
  /** Shown in help after the flag: `--out DIR`; `VALUE` unless given. */
  readonly valueName?: string;
  /**
   * The flag stands in for this setting, in another way: the two are never given together, and
   * the flag meets the setting's requirement.
   */
  readonly insteadOf?: SettingName;
}

export interface ParsedCommand {
  readonly values: Readonly<Record<string, unknown>>;
  readonly positionals: readonly string[];
  readonly help: boolean;
}

export function commandHelp(spec: CommandSpec): string {
  const flags = Object.entries(spec.flags ?? {}).map(([flag, { type, description, valueName = 'VALUE' }]) =>
    helpLine(`--${flag}${type === 'string' ? ` ${valueName}` : ''}`, description),
  );
  const lines = [`Usage: marquee ${spec.usage}`, '', spec.summary, '', 'Options:', describeSettings(spec.settings, spec.required), ...flags, helpLine('--help', 'show this help')];
  return lines.join('\n');
}

/** Parses a command's arguments; a wrong flag is a ConfigError naming it. */
export function parseCommand(spec: CommandSpec, args: readonly string[]): ParsedCommand {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean' } };
  for (const name of spec.settings) options[SETTINGS[name].flag] = { type: 'string', multiple: 'multiple' in SETTINGS[name] };
  for (const [flag, { type, multiple = false }] of Object.entries(spec.flags ?? {})) options[flag] = { type, multiple };
  let parsed: Pick<ReturnType<typeof parseArgs>, 'values' | 'positionals' | 'tokens'>;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: spec.positionals ?? false, tokens: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new ConfigError(`${spec.name}: unknown option ${option ?? message}`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new ConfigError(`${spec.name}: unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? ''}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new ConfigError(`${spec.name}: ${option ?? 'an option'} ${/argument missing|ambiguous/.test(message) ? 'needs a value' : 'takes no value'}`);
    throw error;
  }
  const { values, positionals, tokens } = parsed;
  // parseArgs keeps the last of a flag given twice: `--customer alpha --customer beta` would work on beta unsaid.
  const given = new Set<string>();
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    if (given.has(token.name) && option?.type === 'string' && option.multiple !== true) throw new ConfigError(`${spec.name}: --${token.name} is given twice; it takes one value`);
    given.add(token.name);
  }
  const help = values['help'] === true;
  const standIns = Object.entries(spec.flags ?? {}).filter(([, { insteadOf }]) => insteadOf !== undefined);
  for (const [standIn, { insteadOf }] of standIns) {
    const { flag } = SETTINGS[insteadOf as SettingName];
    if (values[standIn] !== undefined && values[flag] !== undefined) throw new ConfigError(`${spec.name}: give --${flag} or --${standIn}, not both`);
  }
  for (const name of spec.required ?? []) {
    const { flag, valueName } = SETTINGS[name];
    const standIn = standIns.find(([, { insteadOf }]) => insteadOf === name);
    const alternative = standIn === undefined ? '' : ` or --${standIn[0]} ${standIn[1].valueName ?? 'VALUE'}`;
    if (!help && values[flag] === undefined && (standIn === undefined || values[standIn[0]] === undefined)) {
      throw new ConfigError(`${spec.name}: --${flag} ${valueName}${alternative} is required`);
    }
  }
  return { values, positionals, help };
}

/**
 * How a command's writes wait for another writer: up to --lock-timeout, telling the operator
 * once, on standard error, why the command has gone quiet.
 */
export function commandLockWait(settings: Settings<'lockTimeout'>): LockWait {
  let told = false;
  return {
    timeoutMs: settings.lockTimeout,
    onWait: () => {
      if (told) return;
      told = true;
      console.error(`marquee: another import or change holds the database; waiting up to ${settings.lockTimeout / 1000} s for it (--lock-timeout)`);
    },
  };
}

/**
 * Opens the command's database. A command that only reads asks for one that is there already
 * (`existing`): it would otherwise make a mistyped --database, and read it as an empty catalogue
 * (whose export, imported with --replace, would empty the real one).
 */
export async function openCommandDatabase(database: DatabaseSpec, options: OpenOptions): Promise<SqlClient> {
  return openDatabase(database, options).catch((error: unknown) => {
    if (error instanceof NoDatabaseError) throw new ConfigError(`${error.message} (--database); import creates one`);
    throw error;
  });
}

/**
 * Runs `work` on the command's database, waiting for other writers as --lock-timeout allows, and
 * closes it; `existing` for a command that only reads.
 */
export async function withDatabase<T>(settings: Settings<'database' | 'lockTimeout'>, work: (db: SqlClient) => Promise<T>, options: Pick<OpenOptions, 'existing'> = {}): Promise<T> {
  const db = await openCommandDatabase(settings.database, { ...options, lockWait: commandLockWait(settings) });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** What a command issued with a secret shown once, and how to take it back. */
export interface Issued {
  /** Named for the operator, should taking it back fail: `tokens 5 to 9`. */
  readonly what: string;
  /** The command that ends it then. */
  readonly endWith: string;
  readonly takeBack: () => Promise<unknown>;
}

/**
 * Prints what a command shows once and never again (a token, a secret) on standard output,
 * checked: console.log passes over a write that fails (a full disk, a reader gone), which would
 * leave issued a secret nobody holds. When the write fails, what was issued is taken back and
 * the command fails, saying so, and naming it if it could not be taken back.
 */
export async function printSecret(command: string, text: string, issued: Issued): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      // Kept on failure: the stream's 'error' comes after the write's callback, and unheard it would end the process.
      process.stdout.once('error', reject);
      process.stdout.write(text, (error) => {
        if (error) return reject(error);
        process.stdout.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const unwritten = `its secret could not be written to standard output (${(error as Error).message})`;
    try {
      await issued.takeBack();
    } catch (takeBackError) {
      throw new Error(`${command}: ${unwritten}; taking back ${issued.what} failed (${(takeBackError as Error).message}): run '${issued.endWith}'`);
    }
    throw new Error(`${command}: nothing was issued: ${unwritten}`);
  }
}

/** A command's subcommands, by name, each run with the arguments after its name. */
export type Subcommands = Readonly<Record<string, (args: readonly string[]) => Promise<number>>>;

/**
 * Runs the subcommand `args` names; with none, or for help, prints `usage` (exit status 2 when
 * nothing was asked, 0 for help).
 */
export function runSubcommand(command: string, usage: string, subcommands: Subcommands, args: readonly string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === 'help') return console.log(usage), Promise.resolve(name === undefined ? 2 : 0);
  const subcommand = subcommands[name];
  if (subcommand === undefined) {
    const names = Object.keys(subcommands);
    throw new ConfigError(`${command}: unknown subcommand '${name}'; use ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
  }
  return subcommand(rest);
}
