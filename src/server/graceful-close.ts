/**
 * Closing a server without losing a request. Node's `server.close()` also closes every
 * connection it deems idle at that instant, and a keep-alive connection is idle between an
 * answer and the next request: under load, requests already on their way on such connections
 * were reset (64 to 78 of them under `wrk -c64`). So the listener is closed first, on its own;
 * each connection then gets `Connection: close` on its next answer (fastify adds it while it
 * closes), and one that sends nothing for a moment is closed as truly idle. What is still open at
 * the shutdown timeout is cut.
 */
import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** How often idle connections are looked for while closing. */
const SWEEP_MS = 50;
/**
 * How long a connection must have had no request under way before it is closed as idle: longer
 * than a client under load takes to send its next request after an answer.
 */
const IDLE_GRACE_MS = 1000;

interface ConnectionState {
  /** Requests received and not yet answered. */
  inFlight: number;
  /** When the last answer ended, or when the connection opened. */
  idleSince: number;
}

export class GracefulClose {
  private readonly connections = new Map<Socket, ConnectionState>();

  /** Starts following the server's connections; call it before the server listens. */
  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.connections.set(socket, { inFlight: 0, idleSince: Date.now() });
      socket.once('close', () => this.connections.delete(socket));
    });
    server.on('request', (request, response) => {
      const state = this.connections.get(request.socket);
      if (state === undefined) return;
      state.inFlight += 1;
      response.once('close', () => {
        state.inFlight -= 1;
        state.idleSince = Date.now();
      });
    });
  }

  /**
   * Stops accepting connections and resolves once every connection has ended; after `timeoutMs`
   * the ones still open are cut, and `onTimeout` is told how many.
   */
  async close(timeoutMs: number, onTimeout: (openConnections: number) => void): Promise<void> {
    // net.Server's close stops the listener and nothing else; http.Server's would also close the
    // connections that look idle, with requests on their way.
    if (this.server.listening) NetServer.prototype.close.call(this.server);
    const deadline = Date.now() + timeoutMs;
    while (this.connections.size > 0) {
      const now = Date.now();
      if (now >= deadline) {
        onTimeout(this.connections.size);
        for (const socket of this.connections.keys()) socket.destroy();
        return;
      }
      for (const [socket, state] of this.connections) {
        if (state.inFlight === 0 && now - state.idleSince >= IDLE_GRACE_MS) socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, SWEEP_MS));
    }
  }
}
