import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { addressRangeOf, classifyAddress } from './address-table';

/**
 * The one way the service reaches a URL it was given (a shop's API, an MCP server,
 * a help-center site): every address a name resolves to is checked, the
 * connection goes to the address that was checked (no second DNS answer), every
 * redirect is checked as a new request, and the body is counted as it is decoded.
 *
 * Address classes (the table and its sources: address-table.ts):
 * - public: any unicast address on the internet;
 * - private: loopback, RFC 1918, unique-local, carrier-grade NAT:
 *   refused unless the caller allows the private network;
 * - link-local and cloud metadata or host endpoints: refused always;
 * - unusable: unspecified, multicast, broadcast, documentation, reserved and the like, refused always;
 * and the service's own listening address, refused always (a tool must not call the service itself).
 */

/** Why a request was refused or failed; stable words for reports and tests. */
export type NetworkFailure =
  | 'scheme'
  | 'address'
  | 'metadata'
  | 'self'
  | 'dns'
  | 'redirect'
  | 'too_many_redirects'
  | 'timeout'
  | 'too_large'
  | 'connection'
  | 'aborted';

export class NetworkGuardError extends Error {
  constructor(
    readonly reason: NetworkFailure,
    message: string,
    /** The URL that was refused or failed (after redirects, the last one tried). */
    readonly url: string,
  ) {
    super(message);
    this.name = 'NetworkGuardError';
  }
}

export { classifyAddress, type AddressClass } from './address-table';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (the system resolver by default; tests give their own). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface GuardOptions {
  /** Default: the system resolver. */
  resolve?: Resolver;
}

/** What a request may reach. */
export interface ReachPolicy {
  /** Loopback and private addresses may be reached (an intranet service, a test's own server). Default false. */
  allowPrivateNetwork?: boolean;
}

export interface GuardedRequest extends ReachPolicy {
  url: string | URL;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The whole request's deadline: connection, redirects and the last byte of the body. */
  timeoutMs: number;
  /** The most body bytes taken, counted after decompression. */
  maxBytes: number;
  /** Past maxBytes: 'error' (default) refuses the response; 'truncate' keeps the first maxBytes and says so. */
  overflow?: 'error' | 'truncate';
  /**
   * Redirects followed at most, each only within the same origin (scheme, host and port), as
   * browsers resend credentials: a redirect elsewhere is refused, https → http always. Default 5;
   * 0 returns the 3xx.
   */
  maxRedirects?: number;
  /** Also follow a same-host upgrade from http to https (the crawler; it sends no credentials). Default false. */
  followHttpsUpgrade?: boolean;
  signal?: AbortSignal;
}

export interface GuardedResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The body was cut at maxBytes (overflow: 'truncate'). */
  truncated: boolean;
}

/** A URL checked by the guard: the address to connect to and how to name the host to it. */
interface CheckedTarget {
  url: URL;
  address: ResolvedAddress;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class NetworkGuard {
  private readonly resolve: Resolver;
  private servicePort: number | null = null;

  constructor(options: GuardOptions = {}) {
    this.resolve = options.resolve ?? systemResolver;
  }

  /** The port the service listens on: any local address on it is refused, so a tool never calls the service itself. */
  setServicePort(port: number | null): void {
    this.servicePort = port;
  }

  /**
   * Checks a URL as a request to it would be checked: http(s) only; every address its
   * host resolves to must be allowed. Returns the address to connect to.
   */
  async check(url: string | URL, policy: ReachPolicy = {}): Promise<CheckedTarget> {
    const parsed = parseHttpUrl(url);
    const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
    let addresses: ResolvedAddress[];
    if (net.isIP(hostname)) {
      addresses = [{ address: hostname, family: net.isIP(hostname) === 6 ? 6 : 4 }];
    } else {
      try {
        addresses = await this.resolve(hostname);
      } catch (error) {
        throw new NetworkGuardError('dns', `${hostname} could not be resolved (${(error as NodeJS.ErrnoException).code ?? String(error)})`, parsed.href);
      }
      if (addresses.length === 0) throw new NetworkGuardError('dns', `${hostname} has no address`, parsed.href);
    }
    const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
    for (const { address } of addresses) this.checkAddress(address, port, policy, parsed.href);
    return { url: parsed, address: addresses[0] };
  }

  /**
   * One request, its redirects followed within the same host (each checked as a new
   * request), its body read up to the cap. Throws NetworkGuardError when refused,
   * timed out, too large or unreachable; an HTTP error status is a response, not an error.
   */
  async request(request: GuardedRequest): Promise<GuardedResponse> {
    const deadline = AbortSignal.timeout(request.timeoutMs);
    const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
    const maxRedirects = request.maxRedirects ?? 5;
    let url = parseHttpUrl(request.url);
    let method = (request.method ?? 'GET').toUpperCase();
    let body = request.body;
    for (let redirects = 0; ; redirects++) {
      const target = await this.check(url, request);
      let response: GuardedResponse;
      try {
        response = await sendOnce(target, { method, headers: request.headers ?? {}, body, maxBytes: request.maxBytes, overflow: request.overflow ?? 'error' }, signal);
      } catch (error) {
        throw describeFailure(error, signal, deadline, url.href, request.timeoutMs);
      }
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.status) || !location || maxRedirects === 0) return response;
      const next = new URL(location, url);
      const refusal = redirectRefusal(url, next, request.followHttpsUpgrade ?? false);
      if (refusal) throw new NetworkGuardError('redirect', `${url.href} redirects to ${next.href}: ${refusal}; not followed`, next.href);
      if (redirects + 1 > maxRedirects) {
        throw new NetworkGuardError('too_many_redirects', `${request.url} redirected more than ${maxRedirects} times (a redirect loop?)`, next.href);
      }
      // As browsers do: a 303, or a 301/302 after a POST, becomes a GET without a body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      url = next;
    }
  }

  /**
   * A `fetch` that goes through the guard, for clients that bring their own HTTP
   * code (the MCP SDK's streamable HTTP transport): the address is checked and
   * pinned, redirects are returned, not followed, and each response body is
   * streamed with the byte cap enforced as it arrives (a stream that passes it errors).
   * With `timeoutMs`, each fetch (its connection to the last byte of its body) has
   * that deadline, combined with the caller's signal: when either ends it, the
   * connection is destroyed, so a server that trickles its answer holds nothing open.
   * A GET for an event stream (an MCP server's notification stream, meant to stay
   * open) has only the caller's signal.
   */
  fetchFunction(policy: ReachPolicy & { maxBytes: number; timeoutMs?: number }): typeof fetch {
    return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = typeof input === 'string' || input instanceof URL ? input.toString() : input.url;
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      const headers = Object.fromEntries(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).entries());
      const body = await requestBodyBytes(init?.body ?? null);
      const target = await this.check(url, policy);
      const standingStream = method === 'GET' && /text\/event-stream/i.test(headers.accept ?? '');
      const deadline = policy.timeoutMs !== undefined && !standingStream ? AbortSignal.timeout(policy.timeoutMs) : undefined;
      const signals = [init?.signal ?? undefined, deadline].filter((s): s is AbortSignal => s !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const incoming = await openResponse(target, { method, headers, body }, signal);
      // pipeline, not pipe: a connection that breaks mid-body must error the body, not leave it waiting forever.
      const decoded = pipeline(decodedBody(incoming), byteCap(policy.maxBytes, url), () => {});
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value === undefined || name === 'content-encoding' || name === 'content-length') continue;
        for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
      }
      const status = incoming.statusCode ?? 502;
      const nullBody = status === 204 || status === 304 || method === 'HEAD';
      if (nullBody) decoded.resume();
      return new Response(nullBody ? null : (Readable.toWeb(decoded) as ReadableStream<Uint8Array>), { status, headers: responseHeaders });
    }) as typeof fetch;
  }

  private checkAddress(address: string, port: number, policy: ReachPolicy, url: string): void {
    const kind = classifyAddress(address);
    if (kind === 'metadata' || kind === 'link_local') {
      const what = kind === 'metadata' ? (addressRangeOf(address)?.what ?? 'a cloud metadata endpoint') : 'a link-local address, where clouds serve instance metadata';
      throw new NetworkGuardError('metadata', `${url} resolves to ${address} (${what}): refused always, even with allow_private_network`, url);
    }
    if (kind === 'unusable') throw new NetworkGuardError('address', `${url} resolves to ${address}, which is not a usable unicast address`, url);
    if (kind === 'private' && !policy.allowPrivateNetwork) {
      throw new NetworkGuardError(
        'address',
        `${url} resolves to ${address}, a loopback or private address: refused unless allow_private_network is set`,
        url,
      );
    }
    if (this.servicePort !== null && port === this.servicePort && isThisMachine(address)) {
      throw new NetworkGuardError('self', `${url} is this service's own address: refused always`, url);
    }
  }
}

/**
 * Why a redirect from `from` to `to` is not followed, or null when it is: only the same
 * origin, so headers (an API key, a bearer token) and a body are never resent to another
 * host, port or scheme; never from https to http; from http to https on the same host
 * only when the caller allows upgrades.
 */
export function redirectRefusal(from: URL, to: URL, followHttpsUpgrade: boolean): string | null {
  if (to.origin === from.origin) return null;
  if (from.protocol === 'https:' && to.protocol !== 'https:') return 'a downgrade from https';
  if (to.hostname !== from.hostname) return `another host (${to.host})`;
  if (from.protocol === 'http:' && to.protocol === 'https:') return followHttpsUpgrade ? null : 'an upgrade to https, which this request does not follow';
  return `another port (${to.host})`;
}

function parseHttpUrl(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new NetworkGuardError('scheme', `${String(url)} is not a URL`, String(url));
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new NetworkGuardError('scheme', `${parsed.href}: only http and https URLs are fetched`, parsed.href);
  }
  if (parsed.username || parsed.password) {
    throw new NetworkGuardError('scheme', `${parsed.protocol}//${parsed.host}: credentials in a URL are refused; send them as a header`, `${parsed.protocol}//${parsed.host}`);
  }
  return parsed;
}

/** Loopback, the unspecified address, or one of this machine's interface addresses. */
function isThisMachine(address: string): boolean {
  const kind = ipaddr.process(address).range();
  if (kind === 'loopback' || kind === 'unspecified') return true;
  const normalized = ipaddr.process(address).toNormalizedString();
  return Object.values(os.networkInterfaces())
    .flat()
    .some((i) => i !== undefined && ipaddr.process(i.address.replace(/%.*$/, '')).toNormalizedString() === normalized);
}

interface OutgoingRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** Opens the request to the checked address, with the original host name in the Host header and TLS server name. */
function openResponse(target: CheckedTarget, request: OutgoingRequest, signal?: AbortSignal): Promise<http.IncomingMessage> {
  const { url, address } = target;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const pinnedLookup = (_host: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request({
      hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers: { 'accept-encoding': 'gzip, deflate, br', ...request.headers, host: url.host },
      lookup: pinnedLookup as unknown as typeof dns.lookup,
      servername: net.isIP(hostname) ? undefined : hostname,
      agent: false,
      signal,
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(request.body);
  });
}

async function sendOnce(
  target: CheckedTarget,
  request: OutgoingRequest & { maxBytes: number; overflow: 'error' | 'truncate' },
  signal: AbortSignal,
): Promise<GuardedResponse> {
  const incoming = await openResponse(target, request, signal);
  const status = incoming.statusCode ?? 502;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (REDIRECT_STATUSES.has(status)) {
    incoming.resume();
    return { url: target.url.href, status, headers, body: Buffer.alloc(0), truncated: false };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const decoded = decodedBody(incoming);
  try {
    for await (const chunk of decoded as AsyncIterable<Buffer>) {
      if (size + chunk.length > request.maxBytes) {
        if (request.overflow === 'error') {
          throw new NetworkGuardError('too_large', `${target.url.href}: the response is larger than ${request.maxBytes} bytes`, target.url.href);
        }
        chunks.push(chunk.subarray(0, request.maxBytes - size));
        size = request.maxBytes;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    // Stop reading (and inflating) the rest: the cap is what protects memory.
    incoming.destroy();
    decoded.destroy();
  }
  return { url: target.url.href, status, headers, body: Buffer.concat(chunks, size), truncated };
}

/** The body as the server meant it: gzip, deflate and brotli decoded as they stream. */
function decodedBody(incoming: http.IncomingMessage): Readable {
  const encoding = (incoming.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  if (!decoder) return incoming;
  incoming.on('error', (error) => decoder.destroy(error));
  return incoming.pipe(decoder);
}

/** A pass-through that errors once more than maxBytes went through it. */
function byteCap(maxBytes: number, url: string): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      size += chunk.length;
      if (size > maxBytes) callback(new NetworkGuardError('too_large', `${url}: the response is larger than ${maxBytes} bytes`, url));
      else callback(null, chunk);
    },
  });
}

async function requestBodyBytes(body: RequestInit['body']): Promise<string | Uint8Array | undefined> {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return body.toString();
  return new Uint8Array(await new Response(body as ConstructorParameters<typeof Response>[0]).arrayBuffer());
}

/** A failed request in the guard's words: timeout and abort told apart, the socket's error named. */
function describeFailure(error: unknown, signal: AbortSignal, deadline: AbortSignal, url: string, timeoutMs: number): Error {
  if (error instanceof NetworkGuardError) return error;
  if (deadline.aborted) return new NetworkGuardError('timeout', `${url} did not answer within ${timeoutMs} ms`, url);
  if (signal.aborted) return new NetworkGuardError('aborted', `${url}: the request was cancelled`, url);
  const code = (error as NodeJS.ErrnoException).code;
  return new NetworkGuardError('connection', `${url} could not be reached (${code ?? (error as Error).message})`, url);
}
