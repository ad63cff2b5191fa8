import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's HTTP parser refused, as the API's error: status, code and message. */
function describeParserError(code: string | undefined): { status: number; code: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, code: 'headers_too_large', message: 'The request line and headers must stay under 16 KB.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request_timeout', message: 'The request was not received in time.' };
  }
  return { status: 400, code: 'invalid_request', message: 'The request is not valid HTTP/1.1.' };
}

/**
 * What Node's HTTP parser refuses before the app sees it (headers over 16 KB, a
 * malformed request line or header, a request that never finished arriving) is
 * answered with the API's JSON error too, not Node's bare status line; the
 * connection is then closed, as Node would.
 */
export function answerParserErrorsAsJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A client that went away, or a connection already answered: nothing to say.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, code, message } = describeParserError(error.code);
    const body = JSON.stringify({ error: { code, message } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
