/**
 * The graceful close of an HTTP server: stop accepting, let every answer reach its client, close
 * keep-alive connections as they fall idle, and cut whatever is left after a timeout.
 *
 * Node's own close closes the connections it deems idle, once; but it deems idle a connection
 * whose answer is complete and still being sent, so a slow download would be cut short. Here
 * idle connections are closed only while no answer is being sent, and again every 50 ms as
 * connections fall idle.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

const SWEEP_MS = 50;

export class ConnectionDrain {
  private readonly sockets = new Set<Socket>();

  /** Starts tracking the server's connections; call it before the server listens. */
  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
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
