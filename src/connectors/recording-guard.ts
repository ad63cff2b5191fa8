import { AsyncLocalStorage } from 'node:async_hooks';
import { NetworkGuard, type GuardedRequest, type GuardedResponse, type ReachPolicy } from './network-guard';

/** One request as it left the service: what a tool's trial shows the operator. */
export interface SentRequest {
  method: string;
  url: string;
  /** Header names as sent; every value but `accept` and `content-type` replaced by "(hidden, N characters)". */
  headers: Record<string, string>;
  /** The body as text, when there was one. */
  body: string | null;
}

/** Header values shown as they are: the service's own, never a credential. */
const SHOWN_HEADERS = new Set(['accept', 'content-type']);

/** Headers with their values hidden (credentials must not reach a terminal or a page), names kept. */
export function hideHeaderValues(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, SHOWN_HEADERS.has(name.toLowerCase()) ? value : `(hidden, ${value.length} characters)`]),
  );
}

/**
 * The network guard, able to say which requests one piece of work made: inside
 * `record(work)`, every request through it (actions' requests, MCP over HTTP) is
 * noted, header values hidden; outside, it is the plain guard. Used to show an
 * operator what a tried tool sent (`npm run shop -- try`, the console's tools page).
 */
export class RecordingNetworkGuard extends NetworkGuard {
  private readonly recording = new AsyncLocalStorage<SentRequest[]>();

  /** Runs `work` and returns its value with the requests it made, in order. */
  async record<T>(work: () => Promise<T>): Promise<{ value: T; sent: SentRequest[] }> {
    const sent: SentRequest[] = [];
    const value = await this.recording.run(sent, work);
    return { value, sent };
  }

  override async request(request: GuardedRequest): Promise<GuardedResponse> {
    const sent = this.recording.getStore();
    // A request the guard refuses is not sent: it is noted only once it passes the check.
    if (sent) await this.check(request.url, request);
    sent?.push({
      method: (request.method ?? 'GET').toUpperCase(),
      url: String(request.url),
      headers: hideHeaderValues(request.headers ?? {}),
      body: request.body === undefined ? null : typeof request.body === 'string' ? request.body : Buffer.from(request.body).toString('utf8'),
    });
    return super.request(request);
  }

  override fetchFunction(policy: ReachPolicy & { maxBytes: number }): typeof fetch {
    const guarded = super.fetchFunction(policy);
    return (async (input: string | URL | Request, init?: RequestInit) => {
      const sent = this.recording.getStore();
      if (sent) {
        const url = typeof input === 'string' || input instanceof URL ? input.toString() : input.url;
        await this.check(url, policy);
        const headers = Object.fromEntries(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).entries());
        sent.push({
          method: (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(),
          url,
          headers: hideHeaderValues(headers),
          body: typeof init?.body === 'string' ? init.body : init?.body ? '(a body that is not text)' : null,
        });
      }
      return guarded(input, init);
    }) as typeof fetch;
  }
}
