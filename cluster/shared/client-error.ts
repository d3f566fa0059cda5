/**
 * Requests Node's HTTP parser refuses before any route sees them (a request line plus headers over 16 KiB,
 * a malformed request, a client too slow to send its headers) still get a small JSON answer
 * (docs/service-framework.md): never an empty body, and never a connection reset because the caller was
 * still sending. The socket is half-closed after the answer and drained for a moment, so the caller
 * reads the answer instead of a TCP reset.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { lingeringClose } from '../../contracts/http/lingering-close.js';

const answered = new WeakSet<Duplex>();
const HEAD = /^HEAD /;

/**
 * HEAD when the refused bytes start with its request line. (A request line that arrived in an earlier
 * packet — a TLS record holds at most 16 KiB — is not seen: that answer keeps its body. Reading every
 * connection's bytes in JavaScript to know more would cost Node's native parsing on every request.)
 */
function isHead(error: NodeJS.ErrnoException): boolean {
  const packet = (error as { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(packet) && HEAD.test(packet.subarray(0, 5).toString('latin1'));
}

function answerFor(code: string | undefined): { status: number; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        detail: 'Request header fields too large: the request line and headers may total at most 16 KiB',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, detail: 'Request timeout' };
    default:
      return { status: 400, detail: 'Malformed HTTP request' };
  }
}

/** A `clientError` listener for every server that serves a cluster service. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has no one to answer; a parser error repeats for every further chunk.
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  answered.add(socket);
  const { status, detail } = answerFor(error.code);
  const body = JSON.stringify({ detail });
  // An answer to HEAD has no body.
  const toHead = isHead(error);
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        (toHead ? '' : body),
    );
  }
  lingeringClose(socket);
}
