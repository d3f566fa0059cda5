/**
 * A lingering close: after an answer sent before the caller had finished its upload (a 408, a 413), the
 * connection is half-closed (FIN after the answer) and what the caller still sends is read and dropped
 * for a moment before the socket closes. Closing at once with unread bytes would make the kernel reset
 * the connection, and the caller — or a proxy in between still forwarding the upload, such as the ALB —
 * could lose the answer to that reset. Apache's and nginx's lingering close do the same
 * (https://nginx.org/en/docs/http/ngx_http_core_module.html#lingering_close).
 */
import type { Duplex } from 'node:stream';

/** How long a lingering connection keeps reading (and discarding) what the caller still sends. */
const LINGER_MS = 2_000;

export function lingeringClose(socket: Duplex): void {
  if (socket.destroyed) return;
  if (socket.writable) socket.end();
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
