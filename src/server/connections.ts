/**
 * The open connections of an HTTP server, followed for two things Node does not do as needed:
 * cutting a connection whose answer has stopped leaving, and closing gracefully.
 *
 * The idle timeout: a connection whose answer stops leaving, such as one to a client that asked
 * for a large list and stopped reading it, is cut once nothing of it has been sent for the
 * timeout, so such clients cannot pile up answers in memory. Node's own socket timeout would do
 * the same, but it is re-armed on every request and refreshed on every read and write of every
 * connection, which cost about a fortieth of the throughput of small answers; here the
 * connections are looked at a few times per timeout instead.
 *
 * The graceful close: stop accepting, let every answer reach its client, close keep-alive
 * connections as they fall idle, and cut whatever is left after a timeout. Node's own close
 * closes the connections it deems idle, once; but it deems idle a connection whose answer is
 * complete and still being sent, so a slow download would be cut short. Here idle connections
 * are closed only while no answer is being sent, and again every 50 ms as connections fall idle.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

const SWEEP_MS = 50;

interface Progress {
  /** Bytes whose writes had completed at the last look. */
  readonly sent: number;
  /** When that count was first seen. */
  readonly since: number;
}

export class Connections {
  private readonly sockets = new Set<Socket>();

  /** Starts following the server's connections; call it before the server listens. */
  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Cuts, from now until the server closes, each connection whose answer has sent nothing for `idleTimeoutMs`. */
  cutStalledAnswers(idleTimeoutMs: number): void {
    // Only the connections with output waiting, as the last look found them.
    let progress = new Map<Socket, Progress>();
    const look = (): void => {
      const now = Date.now();
      const next = new Map<Socket, Progress>();
      for (const socket of this.sockets) {
        if (socket.writableLength === 0) continue;
        // What was handed to the socket, less what still waits to be written.
        const sent = socket.bytesWritten - socket.writableLength;
        const last = progress.get(socket);
        const since = last !== undefined && last.sent === sent ? last.since : now;
        if (now - since >= idleTimeoutMs) socket.destroy();
        else next.set(socket, { sent, since });
      }
      progress = next;
    };
    const timer = setInterval(look, Math.max(10, Math.min(1000, Math.floor(idleTimeoutMs / 4)))).unref();
    this.server.once('close', () => clearInterval(timer));
  }

  /**
   * Runs `close`, which stops the server and resolves once its connections have ended, while
   * sweeping idle connections; after `timeoutMs` every connection still open is cut.
   */
  async drain(close: () => Promise<void>, timeoutMs: number, onTimeout: (openConnections: number) => void): Promise<void> {
    const closeIdle = this.server.closeIdleConnections.bind(this.server);
    const sweep = (): void => {
      for (const socket of this.sockets) if (socket.writableLength > 0) return;
      closeIdle();
    };
    // Node's close calls this; the sweep takes its place.
    this.server.closeIdleConnections = sweep;
    const sweeper = setInterval(sweep, SWEEP_MS);
    const cut = setTimeout(() => {
      onTimeout(this.sockets.size);
      this.server.closeAllConnections();
    }, timeoutMs);
    try {
      await close();
    } finally {
      clearInterval(sweeper);
      clearTimeout(cut);
    }
  }
}
