/**
 * Round trips to PostgreSQL, counted on the wire: a TCP proxy in front of the database reads the
 * messages of its protocol and counts each time a client speaks while no answer is owed to it,
 * that is, after waiting for every answer it asked for. Statements sent together (pipelined)
 * count once, however the bytes are cut; each statement awaited before the next counts once more.
 */
import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export interface RoundTripCounter {
  /** The database's URL, through the proxy. */
  readonly url: string;
  /** Round trips since the last `reset`, over every connection. */
  count(): number;
  reset(): void;
  close(): Promise<void>;
}

/** Calls `onMessage` with the type of each whole message of a stream: a byte, then a 32-bit length that counts itself. */
function messageReader(onMessage: (type: number) => void, untypedFirst: boolean): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  // A client's first message (startup) has no type byte.
  let untyped = untypedFirst;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const header = untyped ? 0 : 1;
      if (pending.length < header + 4) return;
      const end = header + pending.readInt32BE(header);
      if (pending.length < end) return;
      onMessage(untyped ? 0 : (pending[0] as number));
      untyped = false;
      pending = pending.subarray(end);
    }
  };
}

/** The client's messages that the server answers with ReadyForQuery: startup, Sync and a simple Query. */
const ANSWERED = new Set([0, 'S'.charCodeAt(0), 'Q'.charCodeAt(0)]);
const READY_FOR_QUERY = 'Z'.charCodeAt(0);
const TERMINATE = 'X'.charCodeAt(0);

export async function countRoundTrips(databaseUrl: string): Promise<RoundTripCounter> {
  const target = new URL(databaseUrl);
  let roundTrips = 0;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const server = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    // Answers owed to the client, and whether it has started a message that is not yet answerable (Parse, Bind, … before their Sync).
    let owed = 0;
    let speaking = false;
    const fromClient = messageReader((type) => {
      if (type === TERMINATE) return;
      if (owed === 0 && !speaking) roundTrips++;
      speaking = !ANSWERED.has(type);
      if (!speaking) owed++;
    }, true);
    const fromServer = messageReader((type) => {
      if (type === READY_FOR_QUERY) owed--;
    }, false);
    client.on('data', (chunk: Buffer) => {
      fromClient(chunk);
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      fromServer(chunk);
      client.write(chunk);
    });
    for (const [socket, other] of [
      [client, server],
      [server, client],
    ] as const) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        other.end();
      });
      socket.on('error', () => other.destroy());
    }
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  return {
    url: url.href,
    count: () => roundTrips,
    reset: () => {
      roundTrips = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
