// More listening sockets on the gateway's port (LISTEN_SOCKETS), each handing its connections to
// the one HTTP server, and the connection cap (MAX_CONNECTIONS) counted across all of them.
//
// Why: libuv (libuv/libuv#3696; Node 24 ships 1.52) accepts ONE connection per listening socket
// each time the event loop polls, and relies on the socket staying readable for the next. While
// the loop is busy (each poll turn serves hundreds of requests, tens of milliseconds) new
// connections wait in the kernel's accept queue, unseen and unanswered: at 2,048 connections the
// bench saw answers after 8 s, and a bare node:http server under wrk accepted most of its 2,048
// connections only after the load had stopped. With N sockets on the
// port (SO_REUSEPORT: the kernel spreads new connections across them) each poll accepts up to N.
// docs/performance.md ("Listening sockets") has the figures: 64 sockets were not enough, 512 were.
//
// Linux only: Node refuses `reusePort` elsewhere, where the gateway keeps one listener.
import net from 'node:net';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';

export const REUSE_PORT_SUPPORTED = process.platform === 'linux';

/** Listening sockets may take at most this share of the process's file descriptors. */
const MAX_FD_SHARE = 8;

/**
 * How many sockets to listen on: `requested`, but at most 1/8 of the open-file limit (the soft
 * limit in /proc/self/limits, which Node has already raised to the hard one), so a host with a low
 * limit keeps its descriptors for connections. `limitsText` is that file's text (undefined when
 * it cannot be read: then `requested`).
 */
export function listenSocketCount(requested: number, limitsText: string | undefined = readLimits()): number {
  const soft = limitsText === undefined ? undefined : /^Max open files\s+(\d+)/m.exec(limitsText)?.[1];
  if (soft === undefined) return requested;
  return Math.max(1, Math.min(requested, Math.floor(Number(soft) / MAX_FD_SHARE)));
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

export type Acceptors = {
  /** Connections each extra listener has accepted (tests check the kernel spreads them). */
  accepted(): number[];
  /** Stops the extra listeners accepting; the connections they handed over stay with the HTTP server. */
  close(): void;
  /** The extra listening servers (for stopAccepting). */
  servers(): net.Server[];
};

/**
 * Refuses a port another process listens on. With SO_REUSEPORT a second gateway started on the
 * same port by the same user would silently share its connections (and, on SQLite, its database
 * file); a plain bind fails with EADDRINUSE first, as it did with one listener.
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return; // an ephemeral port is free by definition
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/**
 * Opens `count` more listeners on `host`:`port` (which the HTTP server must be listening on with
 * `reusePort`). A listener that cannot bind is skipped with `onError`: fewer listeners, same service.
 */
export async function addAcceptors(
  server: Server,
  options: { host: string; port: number; backlog: number; count: number; onError: (error: Error) => void },
): Promise<Acceptors> {
  const listeners: Array<{ server: net.Server; accepted: number }> = [];
  for (let i = 0; i < options.count; i += 1) {
    const entry = { server: net.createServer(), accepted: 0 };
    entry.server.on('connection', (socket) => {
      entry.accepted += 1;
      server.emit('connection', socket);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        entry.server.once('error', reject);
        entry.server.listen(
          { host: options.host, port: options.port, backlog: options.backlog, reusePort: true },
          () => {
            entry.server.off('error', reject);
            resolve();
          },
        );
      });
      listeners.push(entry);
    } catch (error) {
      options.onError(error as Error);
      break;
    }
  }
  return {
    accepted: () => listeners.map((l) => l.accepted),
    close: () => {
      for (const l of listeners) l.server.close();
    },
    servers: () => listeners.map((l) => l.server),
  };
}

type Connections = { open: number; sockets: Set<net.Socket>; lingerMs: number | undefined };
const counts = new WeakMap<Server, Connections>();

/**
 * MAX_CONNECTIONS over every connection the HTTP server serves, whichever listener accepted it
 * (Node's own `maxConnections` only counts the server's own listener). One over the cap is
 * closed at once, before any byte is read.
 */
export function limitConnections(server: Server, max: number): void {
  const count: Connections = { open: 0, sockets: new Set(), lingerMs: undefined };
  server.on('connection', (socket: net.Socket) => {
    if (count.open >= max) {
      socket.destroy();
      return;
    }
    count.open += 1;
    count.sockets.add(socket);
    if (count.lingerMs !== undefined) closeWithoutReset(socket, count.lingerMs);
    socket.once('close', () => {
      count.open -= 1;
      count.sockets.delete(socket);
    });
  });
  counts.set(server, count);
}

/** Open connections of a server set up with limitConnections (0 for any other). */
export function openConnections(server: Server): number {
  return counts.get(server)?.open ?? 0;
}

// Closing without resets (docs/deployment.md "Signals and supervisors"). A socket closed while
// bytes the client sent are still unread, or that receives bytes after it closed, makes the kernel
// answer with a reset (RST), and the client loses the answer it may already have received. So at
// shutdown a connection is half-closed instead (FIN after the last answer), what the client still
// sends is read and dropped, and the socket is destroyed when the client closes its side, or after
// `lingerMs`. Likewise a listening socket closed with connections in its accept queue resets them
// (see stopAccepting).

/**
 * From now on every connection of `server` that the HTTP server ends (after a `Connection: close`
 * answer) or that `connectionsClosed` ends is half-closed and drained rather than destroyed.
 */
export function closeConnectionsWithoutReset(server: Server, lingerMs: number): void {
  const count = counts.get(server);
  if (!count) return;
  count.lingerMs = lingerMs;
  for (const socket of count.sockets) closeWithoutReset(socket, lingerMs);
}

function closeWithoutReset(socket: net.Socket, lingerMs: number): void {
  // node:http ends a connection after a `Connection: close` answer with destroySoon(), which
  // destroys the socket as soon as the FIN is written.
  socket.destroySoon = () => endAndDrain(socket, lingerMs);
}

const ending = new WeakSet<net.Socket>();

function endAndDrain(socket: net.Socket, lingerMs: number): void {
  if (socket.destroyed || ending.has(socket)) return;
  ending.add(socket);
  socket.end();
  socket.resume();
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), lingerMs).unref();
}

/**
 * Closes `listeners`. A listening socket closed with connections in its accept queue resets them,
 * so the caller first makes sure no client is connecting (server.ts holds the draining answers, so
 * the clients they would send away do not reconnect meanwhile). The HTTP server's own listener is
 * closed as a plain net.Server, so its idle connections are not destroyed with it.
 */
export function stopAccepting(listeners: net.Server[]): void {
  for (const listener of listeners) if (listener.listening) net.Server.prototype.close.call(listener);
}

/**
 * After `stopAccepting` and `closeConnectionsWithoutReset`: waits `readWindowMs` so that what
 * clients had already sent is read and answered (503 with `Connection: close` while draining),
 * then half-closes each connection with no answer in progress, until every connection is closed,
 * whichever listener accepted it. Past `timeoutMs` the rest are destroyed.
 */
export async function connectionsClosed(
  server: Server,
  timeoutMs: number,
  readWindowMs = 0,
  lingerMs = 1000,
): Promise<void> {
  const count = counts.get(server);
  const deadline = Date.now() + timeoutMs;
  if (count && count.open > 0 && readWindowMs > 0)
    await new Promise((resolve) => setTimeout(resolve, Math.min(readWindowMs, timeoutMs)));
  while (count && count.open > 0 && Date.now() < deadline) {
    for (const socket of count.sockets) if (!answering(socket)) endAndDrain(socket, lingerMs);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (openConnections(server) > 0) server.closeAllConnections();
}

/** node:http keeps the response being written on its socket as `_httpMessage`. */
function answering(socket: net.Socket): boolean {
  return (socket as unknown as { _httpMessage?: unknown })._httpMessage != null;
}
