/**
 * HTTP/1.1 over a plain socket, for what fetch will not send: oversized or
 * non-Latin-1 headers, malformed request lines, and clients that send a byte at a
 * time. The request goes out as given; the response is read until it is whole
 * (by Content-Length or the last chunk) or the server closes the connection.
 */
import net from 'node:net';

export interface RawResponse {
  /** 0 when the server closed the connection without answering. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, as text. */
  raw: string;
  /** Set when the socket failed (e.g. reset by the server) rather than closed. */
  error?: string;
}

export interface RawRequestOptions {
  /** Send the request this many bytes at a time… */
  bytesPerWrite?: number;
  /** …waiting this long between writes (a slow client). */
  delayMs?: number;
  /** Stop sending after this many bytes and wait for the server (a stalled client). */
  stopAfterBytes?: number;
  /** Give up (and destroy the socket) after this long; the response so far is returned. */
  timeoutMs?: number;
  /** Called once the first byte was written, with a way to abandon the request early. */
  onStart?: (destroy: () => void) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function rawRequest(port: number, request: string | Buffer, options: RawRequestOptions = {}): Promise<RawResponse> {
  const bytes = typeof request === 'string' ? Buffer.from(request, 'utf8') : request;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    let error: string | undefined;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks), error));
    };
    const timer = setTimeout(() => {
      socket.destroy();
      finish();
    }, options.timeoutMs ?? 30_000);
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      // A whole response: done, even if the server keeps the connection open.
      if (isComplete(Buffer.concat(chunks))) {
        socket.destroy();
        finish();
      }
    });
    socket.on('error', (e) => {
      error = e.message;
    });
    socket.on('close', finish);
    socket.on('connect', async () => {
      options.onStart?.(() => socket.destroy());
      const limit = Math.min(bytes.length, options.stopAfterBytes ?? bytes.length);
      const step = options.bytesPerWrite ?? limit;
      for (let offset = 0; offset < limit && !socket.destroyed; offset += step) {
        socket.write(bytes.subarray(offset, Math.min(limit, offset + step)));
        if (options.delayMs && offset + step < limit) await sleep(options.delayMs);
      }
    });
  });
}

/** Whether `data` holds a whole response (by Content-Length, or the last chunk of a chunked body). */
function isComplete(data: Buffer): boolean {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const head = data.subarray(0, headEnd).toString('latin1').toLowerCase();
  const length = /\r\ncontent-length: *(\d+)/.exec(head)?.[1];
  if (length !== undefined) return data.length - headEnd - 4 >= Number(length);
  if (/\r\ntransfer-encoding: *chunked/.test(head)) return data.subarray(-7).toString('latin1').endsWith('\r\n0\r\n\r\n') || data.subarray(headEnd + 4).toString('latin1') === '0\r\n\r\n';
  return false;
}

function parseResponse(data: Buffer, error: string | undefined): RawResponse {
  const raw = data.toString('utf8');
  const headEnd = data.indexOf('\r\n\r\n');
  const head = (headEnd < 0 ? data : data.subarray(0, headEnd)).toString('latin1');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let bodyBytes = headEnd < 0 ? Buffer.alloc(0) : data.subarray(headEnd + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') bodyBytes = dechunk(bodyBytes);
  return { status, headers, body: bodyBytes.toString('utf8'), raw, ...(error !== undefined && { error }) };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** A request's bytes: request line, headers (Host and Connection: close added), body with its length. */
export function httpRequest(method: string, target: string, headers: Record<string, string> = {}, body?: string | Buffer): Buffer {
  const payload = body === undefined ? Buffer.alloc(0) : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const all: Record<string, string> = {
    host: '127.0.0.1',
    connection: 'close',
    ...(body !== undefined && { 'content-length': String(payload.length) }),
    ...headers,
  };
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'utf8'), payload]);
}

/** Server-sent events of a stream body, in order. */
export function parseSse(body: string): Array<{ event: string; data: unknown }> {
  return body
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
      if (!event) return null;
      let parsed: unknown = data;
      try {
        parsed = data === undefined ? undefined : JSON.parse(data);
      } catch {
        // kept as text
      }
      return { event, data: parsed };
    })
    .filter((e): e is { event: string; data: unknown } => e !== null);
}
