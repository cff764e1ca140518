/**
 * Webhook endpoints for tests, on loopback: one HTTP server whose paths each behave their own
 * way (answer at once, fail, hold each request until released, never answer, 410, 429), and
 * which keeps every request it was sent.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { atEnd } from './helpers.js';

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How a path answers its `index`th request (0 first): a status and headers, or `hold` to answer only when released. */
export type Behaviour = (index: number) => { readonly status: number; readonly headers?: Record<string, string> } | 'hold';

export class Receivers {
  readonly received: Received[] = [];
  private readonly held: { readonly path: string; readonly response: ServerResponse }[] = [];
  private readonly behaviours = new Map<string, Behaviour>();

  private constructor(readonly origin: string) {}

  static async start(): Promise<Receivers> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => receivers.answer(request.url ?? '/', request.headers, Buffer.concat(chunks).toString('utf8'), response));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const receivers = new Receivers(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    atEnd(async () => {
      server.closeAllConnections();
      server.close();
    });
    return receivers;
  }

  /** The URL of a path that behaves as `behaviour`. */
  at(path: string, behaviour: Behaviour): string {
    this.behaviours.set(path, behaviour);
    return `${this.origin}${path}`;
  }

  /** What `path` was sent, in order. */
  to(path: string): Received[] {
    return this.received.filter((one) => one.path === path);
  }

  /** Answers every request to `path` held so far with 200. */
  release(path: string): void {
    for (const one of this.held.filter((held) => held.path === path)) {
      this.held.splice(this.held.indexOf(one), 1);
      one.response.writeHead(200).end();
    }
  }

  private answer(path: string, headers: IncomingHttpHeaders, body: string, response: ServerResponse): void {
    const index = this.to(path).length;
    this.received.push({ path, headers, body });
    const behaviour = this.behaviours.get(path)?.(index) ?? { status: 404 };
    if (behaviour === 'hold') this.held.push({ path, response });
    else response.writeHead(behaviour.status, behaviour.headers).end();
  }
}

/** The event of a request, once `standardwebhooks`, which Marquee did not write, has verified its signature with `secret`. */
export function verified(secret: string, received: Received): { type: string; timestamp: string; data: { customer: string; version: number; changes: Record<string, Record<string, unknown>>; tags: string[] } } {
  const headers = { 'webhook-id': String(received.headers['webhook-id']), 'webhook-timestamp': String(received.headers['webhook-timestamp']), 'webhook-signature': String(received.headers['webhook-signature']) };
  return new Webhook(secret).verify(received.body, headers) as ReturnType<typeof verified>;
}
