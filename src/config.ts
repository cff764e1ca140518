/**
 * Settings of every command, declared once: flag, environment variable, default, parser and
 * description. Flags win over the environment; the first bad value stops the command with a
 * one-line error that names the flag or variable.
 */
import { isIP } from 'node:net';
import { CUSTOMER_KEY_PATTERN, DEFAULT_CUSTOMER } from './catalogue/model.js';
import { DEFAULT_MAX_PROBLEMS } from './catalogue/problems.js';
import { DEFAULT_XML_NAMESPACE } from './formats/xml-writer.js';
import { parseOrigin } from './http/cors.js';
import { DEFAULT_DATABASE, DatabaseSpecError, parseDatabaseSpec, type DatabaseSpec } from './store/database.js';
import { DEFAULT_LOCK_TIMEOUT_MS } from './store/sql-client.js';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface Setting<T> {
  /** The flag without its dashes. */
  readonly flag: string;
  readonly env?: string;
  /** Shown in help after the flag: `--port N`. */
  readonly valueName: string;
  readonly description: string;
  /** What is parsed when neither flag nor variable is given; empty for a setting that is off unless given. */
  readonly defaultText: string;
  /** Parses one value; a flag that may be repeated parses each of its values. */
  readonly parse: (text: string) => T;
  /**
   * The flag may be given more than once and its variable holds the values separated by commas;
   * the setting is then the list of parsed values.
   */
  readonly multiple?: true;
}

function integerIn(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) throw new Error(`must be an integer from ${min} to ${max}`);
    return value;
  };
}

/** A positive number of requests per second, or `off`; null stands for off. */
function requestRate(text: string): number | null {
  if (text === 'off' || text === '0') return null;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || value < 0.001 || value > 1_000_000) throw new Error('must be off or a number of requests per second from 0.001 to 1000000');
  return value;
}

/** An IP address, or a CIDR range of them: `10.0.0.1`, `10.0.0.0/8`, `fd00::/8`. */
function proxyAddress(text: string): string {
  const [address = '', bits, ...rest] = text.split('/');
  const version = isIP(address);
  const width = version === 4 ? 32 : 128;
  const valid = version !== 0 && rest.length === 0 && (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= width));
  if (!valid) throw new Error('must be an IP address or a CIDR range, such as 10.0.0.1 or 10.0.0.0/8');
  return text;
}

function onOrOff(text: string): boolean {
  if (text !== 'on' && text !== 'off') throw new Error('must be on or off');
  return text === 'on';
}

function nonEmpty(text: string): string {
  if (text.trim() === '') throw new Error('must not be empty');
  return text;
}

/** A number of bytes as written, kept for messages: `500MB`, `1GiB` or plain bytes. */
export interface ByteSize {
  readonly bytes: number;
  readonly text: string;
}

const BYTE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

function byteSize(text: string): ByteSize {
  const match = /^(\d+(?:\.\d+)?) ?([a-z]*)$/i.exec(text.trim());
  const unit = match ? BYTE_UNITS[(match[2] as string).toLowerCase()] : undefined;
  const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : 0;
  if (bytes < 1 || !Number.isSafeInteger(bytes)) throw new Error('must be a size such as 500MB, 1GiB or a number of bytes');
  return { bytes, text: text.trim() };
}

/** A length of time as written, such as `7d`, `12h`, `30m` or `90s`, in milliseconds. */
function duration(text: string): number {
  const match = /^(\d{1,9})(s|m|h|d)$/.exec(text.trim());
  const unit = match ? { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'] : 0;
  const ms = match ? Number(match[1]) * unit : 0;
  if (ms < 1000 || !Number.isSafeInteger(ms)) throw new Error('must be a length of time such as 7d, 12h, 30m or 90s');
  return ms;
}

/** The start of http or https URLs that an operator allows: `https://images.cinema.example/posters/`. */
function urlPrefix(text: string): string {
  const url = URL.parse(text);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || !text.toLowerCase().startsWith(url.protocol)) {
    throw new Error('must be the start of http or https URLs, such as https://images.cinema.example/ or http://10.0.0.5:8000/hooks/');
  }
  return text;
}

function databaseSpec(text: string): DatabaseSpec {
  try {
    return parseDatabaseSpec(text);
  } catch (error) {
    if (error instanceof DatabaseSpecError) throw new Error(error.message);
    throw error;
  }
}

export const SETTINGS = {
  database: {
    flag: 'database',
    env: 'MARQUEE_DATABASE',
    valueName: 'D',
    description: 'SQLite file path (or sqlite:PATH), or a postgres:// URL',
    defaultText: DEFAULT_DATABASE,
    parse: databaseSpec,
  },
  readDatabase: {
    flag: 'read-database',
    env: 'MARQUEE_READ_DATABASE',
    valueName: 'D',
    description: 'database to read catalogues from, such as a replica; --database still migrates and notifies',
    defaultText: '',
    parse: (text: string): DatabaseSpec | undefined => (text === '' ? undefined : databaseSpec(text)),
  },
  lockTimeout: {
    flag: 'lock-timeout',
    env: 'MARQUEE_LOCK_TIMEOUT',
    valueName: 'MS',
    description: 'how long a write waits for another one (an import, a sync) to finish, in milliseconds; then it fails, changing nothing',
    defaultText: String(DEFAULT_LOCK_TIMEOUT_MS),
    parse: integerIn(0, 3_600_000),
  },
  customer: {
    flag: 'customer',
    valueName: 'KEY',
    description: 'customer whose catalogue is read or written',
    defaultText: DEFAULT_CUSTOMER,
    parse: (text: string): string => {
      if (!CUSTOMER_KEY_PATTERN.test(text)) throw new Error('must be 1 to 64 of a-z, 0-9 and -');
      return text;
    },
  },
  port: {
    flag: 'port',
    env: 'PORT',
    valueName: 'N',
    description: 'TCP port to listen on',
    defaultText: '8080',
    parse: integerIn(0, 65535),
  },
  host: {
    flag: 'host',
    env: 'HOST',
    valueName: 'H',
    description: 'address to listen on',
    defaultText: '127.0.0.1',
    parse: nonEmpty,
  },
  xmlNamespace: {
    flag: 'xml-namespace',
    env: 'MARQUEE_XML_NAMESPACE',
    valueName: 'URI',
    description: 'default namespace of XML answers',
    defaultText: DEFAULT_XML_NAMESPACE,
    parse: nonEmpty,
  },
  cacheControl: {
    flag: 'cache-control',
    env: 'MARQUEE_CACHE_CONTROL',
    valueName: 'VALUE',
    description: 'Cache-Control header of catalogue answers',
    defaultText: 'no-cache',
    parse: nonEmpty,
  },
  pollInterval: {
    flag: 'poll-interval',
    env: 'MARQUEE_POLL_INTERVAL',
    valueName: 'MS',
    description: 'how often a server checks the database for a new catalogue or access corrections, in milliseconds',
    defaultText: '250',
    parse: integerIn(10, 3_600_000),
  },
  cacheMemory: {
    flag: 'cache-memory',
    env: 'MARQUEE_CACHE_MEMORY',
    valueName: 'SIZE',
    description: "memory the published catalogues may hold, such as 512MiB; beyond it the least recently asked customer's is let go until its next request",
    defaultText: '1GiB',
    parse: byteSize,
  },
  rateLimit: {
    flag: 'rate-limit',
    env: 'MARQUEE_RATE_LIMIT',
    valueName: 'R',
    description: 'requests per second each token may make on average (each client address while no token exists), or off',
    defaultText: 'off',
    parse: requestRate,
  },
  rateBurst: {
    flag: 'rate-burst',
    env: 'MARQUEE_RATE_BURST',
    valueName: 'N',
    description: 'requests a token may make at once before --rate-limit paces it',
    defaultText: '20',
    parse: integerIn(1, 1_000_000),
  },
  publicRateLimit: {
    flag: 'public-rate-limit',
    env: 'MARQUEE_PUBLIC_RATE_LIMIT',
    valueName: 'R',
    description: 'requests per second each client address may make on average with a publishable key, or off',
    defaultText: '5',
    parse: requestRate,
  },
  publicRateBurst: {
    flag: 'public-rate-burst',
    env: 'MARQUEE_PUBLIC_RATE_BURST',
    valueName: 'N',
    description: 'requests a client address may make at once with a publishable key before --public-rate-limit paces it',
    defaultText: '30',
    parse: integerIn(1, 1_000_000),
  },
  programmeCacheControl: {
    flag: 'programme-cache-control',
    env: 'MARQUEE_PROGRAMME_CACHE_CONTROL',
    valueName: 'VALUE',
    description: 'Cache-Control header of the programme answered to a publishable key, which shared caches may keep',
    defaultText: 'public, max-age=60',
    parse: nonEmpty,
  },
  trustProxy: {
    flag: 'trust-proxy',
    env: 'MARQUEE_TRUST_PROXY',
    valueName: 'ADDRESS',
    description:
      'an address or CIDR range of a proxy in front, such as 10.0.0.0/8, whose X-Forwarded-For then names the client (for per-address rate limits); repeatable (the variable takes a comma-separated list)',
    defaultText: '',
    parse: proxyAddress,
    multiple: true,
  },
  corsOrigins: {
    flag: 'cors-origin',
    env: 'MARQUEE_CORS_ORIGINS',
    valueName: 'ORIGIN',
    description: 'an origin whose web pages may call the API, such as https://cinema.example; repeatable (the variable takes a comma-separated list)',
    defaultText: '',
    parse: parseOrigin,
    multiple: true,
  },
  metricsCustomers: {
    flag: 'metrics-customers',
    env: 'MARQUEE_METRICS_CUSTOMERS',
    valueName: 'on|off',
    description: "per-customer series in /metrics, labelled with each customer's key (which /metrics, open to anyone, then shows)",
    defaultText: 'off',
    parse: onOrOff,
  },
  requestLog: {
    flag: 'request-log',
    env: 'MARQUEE_REQUEST_LOG',
    valueName: 'on|off',
    description: 'a line at info for each request answered; off where the proxy in front logs them',
    defaultText: 'on',
    parse: onOrOff,
  },
  logLevel: {
    flag: 'log-level',
    env: 'MARQUEE_LOG_LEVEL',
    valueName: 'LEVEL',
    description: 'fatal, error, warn, info, debug, trace or silent',
    defaultText: 'info',
    parse: (text: string): string => {
      if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(text)) throw new Error('must be one of fatal, error, warn, info, debug, trace, silent');
      return text;
    },
  },
  requestTimeout: {
    flag: 'request-timeout',
    env: 'MARQUEE_REQUEST_TIMEOUT',
    valueName: 'MS',
    description: 'longest time a client may take to send a whole request, in milliseconds',
    defaultText: '30000',
    parse: integerIn(1, 3_600_000),
  },
  headersTimeout: {
    flag: 'headers-timeout',
    env: 'MARQUEE_HEADERS_TIMEOUT',
    valueName: 'MS',
    description: 'longest time a client may take to send the request line and headers, in milliseconds; at most the request timeout',
    defaultText: '10000',
    parse: integerIn(1, 3_600_000),
  },
  idleTimeout: {
    flag: 'idle-timeout',
    env: 'MARQUEE_IDLE_TIMEOUT',
    valueName: 'MS',
    description: 'longest an answer may wait with nothing of it sent (a client that stops reading), in milliseconds',
    defaultText: '60000',
    parse: integerIn(1, 3_600_000),
  },
  keepAliveTimeout: {
    flag: 'keep-alive-timeout',
    env: 'MARQUEE_KEEP_ALIVE_TIMEOUT',
    valueName: 'MS',
    description: 'how long an idle keep-alive connection stays open, in milliseconds; above the idle timeout of a load balancer in front',
    defaultText: '5000',
    parse: integerIn(1, 3_600_000),
  },
  maxRequestsPerSocket: {
    flag: 'max-requests-per-socket',
    env: 'MARQUEE_MAX_REQUESTS_PER_SOCKET',
    valueName: 'N',
    description: 'requests answered on one keep-alive connection before it is closed; 0 for no limit',
    defaultText: '10000',
    parse: integerIn(0, 1_000_000_000),
  },
  maxHeaderSize: {
    flag: 'max-header-size',
    env: 'MARQUEE_MAX_HEADER_SIZE',
    valueName: 'BYTES',
    description: 'largest request line and headers accepted; larger ones answer 431',
    defaultText: '16384',
    parse: integerIn(1024, 1_048_576),
  },
  shutdownTimeout: {
    flag: 'shutdown-timeout',
    env: 'MARQUEE_SHUTDOWN_TIMEOUT',
    valueName: 'MS',
    description: 'on SIGTERM or SIGINT, how long requests in flight may take before their connections are cut, in milliseconds',
    defaultText: '10000',
    parse: integerIn(0, 3_600_000),
  },
  imageSources: {
    flag: 'image-source',
    env: 'MARQUEE_IMAGE_SOURCES',
    valueName: 'PREFIX',
    description:
      'a URL prefix, such as https://images.cinema.example/, that pictures are read from; naming any limits reading to those named, and lets them reach private and loopback addresses; repeatable (the variable takes a comma-separated list)',
    defaultText: '',
    parse: urlPrefix,
    multiple: true,
  },
  imageTimeout: {
    flag: 'image-timeout',
    env: 'MARQUEE_IMAGE_TIMEOUT',
    valueName: 'MS',
    description: 'longest a picture may take to be read from its source, redirects included, in milliseconds',
    defaultText: '10000',
    parse: integerIn(1, 600_000),
  },
  imageMaxBytes: {
    flag: 'image-max-bytes',
    env: 'MARQUEE_IMAGE_MAX_BYTES',
    valueName: 'SIZE',
    description: 'largest picture read from a source, such as 20MiB; a larger one is refused',
    defaultText: '20MiB',
    parse: byteSize,
  },
  imageCache: {
    flag: 'image-cache',
    env: 'MARQUEE_IMAGE_CACHE',
    valueName: 'SIZE',
    description: 'room the pictures read from their sources take in the database, such as 1GiB; beyond it the least recently used are let go, to be read again when asked for',
    defaultText: '1GiB',
    parse: byteSize,
  },
  maxProblems: {
    flag: 'max-problems',
    env: 'MARQUEE_MAX_PROBLEMS',
    valueName: 'N',
    description: 'problems (and warnings) an import lists; the rest are counted',
    defaultText: String(DEFAULT_MAX_PROBLEMS),
    parse: integerIn(0, 1_000_000_000),
  },
  maxDownload: {
    flag: 'max-download',
    env: 'MARQUEE_MAX_DOWNLOAD',
    valueName: 'SIZE',
    description: 'most that one sync reads from its upstream, all lists together, decompressed, such as 20MB or 1GiB; its import holds up to about eight times as much in memory',
    defaultText: '64MiB',
    parse: byteSize,
  },
  maxTemp: {
    flag: 'max-temp',
    env: 'MARQUEE_MAX_TEMP',
    valueName: 'SIZE',
    description: 'most that the syncs of one process keep of their answers at once, in memory and temporary files: fewer run at once than --concurrency if need be',
    defaultText: '512MiB',
    parse: byteSize,
  },
  webhookTarget: {
    flag: 'webhook-target',
    env: 'MARQUEE_WEBHOOK_TARGETS',
    valueName: 'PREFIX',
    description:
      'the start of webhook URLs that may reach any address, such as http://10.0.0.5:8000/hooks/ (others must be public); repeatable (the variable takes a comma-separated list)',
    defaultText: '',
    parse: urlPrefix,
    multiple: true,
  },
  changeRetention: {
    flag: 'change-retention',
    env: 'MARQUEE_CHANGE_RETENTION',
    valueName: 'TIME',
    description: 'how long each change is kept for /changes and webhook retries, such as 7d or 12h',
    defaultText: '7d',
    parse: duration,
  },
} as const satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof SETTINGS;
type SettingValue<S> = S extends { readonly parse: (text: string) => infer T } ? (S extends { readonly multiple: true } ? readonly T[] : T) : never;
export type Settings<Names extends SettingName> = { readonly [N in Names]: SettingValue<(typeof SETTINGS)[N]> };

/** The values of a comma-separated list, without the blanks around them. */
function splitList(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * Resolves the named settings from parsed flags, then the environment, then defaults. The
 * result is frozen: configuration is read once, at start.
 */
export function resolveSettings<Names extends SettingName>(
  names: readonly Names[],
  flags: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
): Settings<Names> {
  const resolved: Record<string, unknown> = {};
  for (const name of names) {
    const setting: Setting<unknown> = SETTINGS[name];
    // parseArgs gives a string, or an array of them for a flag that may be repeated.
    const flagValue = flags[setting.flag];
    const given = typeof flagValue === 'string' ? [flagValue] : Array.isArray(flagValue) ? flagValue.map(String) : [];
    const envText = setting.env === undefined ? undefined : env[setting.env];
    const textsOf = (text: string): string[] => (setting.multiple ? splitList(text) : [text]);
    const [source, texts] =
      given.length > 0
        ? [`--${setting.flag}`, given]
        : envText !== undefined
          ? [setting.env, textsOf(envText)]
          : [undefined, textsOf(setting.defaultText)];
    const values = texts.map((text) => {
      try {
        return setting.parse(text);
      } catch (error) {
        throw new ConfigError(`${source ?? `the default of --${setting.flag}`} ${(error as Error).message}, got '${text}'`);
      }
    });
    resolved[name] = setting.multiple ? Object.freeze(values) : values[0];
  }
  return Object.freeze(resolved) as Settings<Names>;
}

/** Node refuses a headers timeout longer than the request timeout; say so before it does. */
export function checkServerTimeouts(settings: Settings<'requestTimeout' | 'headersTimeout'>): void {
  if (settings.headersTimeout > settings.requestTimeout) {
    throw new ConfigError(
      `--headers-timeout (${SETTINGS.headersTimeout.env}) must be at most --request-timeout (${settings.requestTimeout}), got '${settings.headersTimeout}'`,
    );
  }
}

/** A line of help: an option, then what it does, in a column of its own when the option leaves room. */
export function helpLine(option: string, description: string): string {
  return `  ${option}`.padEnd(31) + ` ${description}`;
}

/** One help line per setting: flag, variable, default (or that it is required) and meaning. */
export function describeSettings(names: readonly SettingName[], required: readonly SettingName[] = []): string {
  return names
    .map((name) => {
      const setting: Setting<unknown> = SETTINGS[name];
      const env = setting.env ? ` (env ${setting.env})` : '';
      const fallback = required.includes(name) ? '; required' : setting.defaultText === '' ? '' : `; default ${setting.defaultText}`;
      return helpLine(`--${setting.flag} ${setting.valueName}`, `${setting.description}${env}${fallback}`);
    })
    .join('\n');
}
