/**
 * LISTEN on a connection of its own, kept open for as long as the subscription lives: when the
 * connection drops (the database restarts, a network hiccup, an administrator ends it), a new
 * one is made, every second, until the database answers again.
 */
import pg from 'pg';
import type { Subscription } from './sql-client.js';

const RECONNECT_DELAY_MS = 1000;

export class PostgresListener implements Subscription {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly onSignal: () => void,
  ) {
    void this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.config);
    this.client = client;
    let lost = false;
    const reconnect = (): void => {
      if (lost) return;
      lost = true;
      client.end().catch(() => {});
      if (this.closed) return;
      this.retry = setTimeout(() => void this.connect(), RECONNECT_DELAY_MS);
      this.retry.unref();
    };
    // A connection error arrives as an event; left unhandled it would end the process.
    client.on('error', reconnect);
    client.on('end', reconnect);
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.onSignal();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    } catch {
      reconnect();
      return;
    }
    if (this.closed) await client.end();
    else this.onSignal();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
  }
}
