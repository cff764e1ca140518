/**
 * The idle timeout: a connection whose answer stops leaving, such as one to a client that asked
 * for a large list and stopped reading it, is cut once nothing of it has been sent for the
 * timeout, so such clients cannot pile up answers in memory.
 *
 * Node's own socket timeout would do the same, but it is re-armed on every request and refreshed
 * on every read and write of every connection, which cost about a fortieth of the throughput of
 * small answers. Here the open connections are looked at a few times per timeout instead, and only
 * those with output waiting are followed.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

interface Progress {
  /** Bytes whose writes had completed at the last look. */
  readonly sent: number;
  /** When that count was first seen. */
  readonly since: number;
}

export function cutStalledAnswers(server: Server, idleTimeoutMs: number): void {
  const sockets = new Set<Socket>();
  const progress = new Map<Socket, Progress>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      progress.delete(socket);
    });
  });
  const look = (): void => {
    const now = Date.now();
    for (const socket of sockets) {
      if (socket.writableLength === 0) {
        progress.delete(socket);
        continue;
      }
      // What was handed to the socket, less what still waits to be written.
      const sent = socket.bytesWritten - socket.writableLength;
      const last = progress.get(socket);
      if (last === undefined || last.sent !== sent) progress.set(socket, { sent, since: now });
      else if (now - last.since >= idleTimeoutMs) socket.destroy();
    }
  };
  const timer = setInterval(look, Math.max(10, Math.min(1000, Math.floor(idleTimeoutMs / 4)))).unref();
  server.once('close', () => clearInterval(timer));
}
