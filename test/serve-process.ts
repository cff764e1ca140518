/** `marquee serve` as a child process, started as an operator starts it, with what it writes. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { MARQUEE, ROOT, atEnd } from './helpers.js';

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  /** Each line of standard output, parsed: the JSON log. */
  readonly logs: Record<string, unknown>[];
  /** Everything written to standard output and standard error, as written. */
  readonly output: string[];
  /** The exit code, once the process has exited. */
  readonly exited: Promise<number | null>;
}

/** Starts `marquee serve` on a free port and waits for it to say where it listens. */
export async function serve(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [MARQUEE, 'serve', '--port', '0', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  atEnd(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const logs: Record<string, unknown>[] = [];
  const output: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (text: string) => output.push(text));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    void exited.then((code) => reject(new Error(`the server exited with ${code}: ${output.join('')}`)));
    lines.on('line', (line) => {
      output.push(line);
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(String(entry['msg']));
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url, port: Number(new URL(url).port), logs, output, exited };
}

/** Polls `condition` every 50 ms; fails after `timeoutMs`. Resolves with the time it took. */
export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}
