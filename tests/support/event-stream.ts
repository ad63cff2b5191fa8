/** One event of a GET event stream, with its id (the message's seq) when it had one. */
export interface StreamEvent {
  id: string | null;
  event: string;
  data: any;
  /** Date.now() when it arrived. */
  at: number;
}

export interface EventStreamClient {
  status: number;
  /** The error body when the server answered with JSON instead of a stream. */
  json: any;
  events: StreamEvent[];
  comments: string[];
  /** Resolves when the server ends the stream ('ended') or it breaks ('broken'). */
  finished: Promise<'ended' | 'broken'>;
  /** The first event (already arrived or still to come) that matches, or a timeout error naming what did arrive. */
  waitFor(match: (e: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  /** Hangs up. */
  close(): void;
}

/** Opens GET `url` as an event stream and keeps reading in the background. */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  const client: EventStreamClient = {
    status: response.status,
    json: null,
    events,
    comments,
    finished: Promise.resolve('ended'),
    waitFor: (match, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(match);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => [e.event, e.id, e.data?.content]))}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    close: () => abort.abort(),
  };
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    client.json = await response.json().catch(() => null);
    return client;
  }
  client.finished = (async () => {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | null = null;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length > 0) events.push({ id, event, data: JSON.parse(data.join('\n')), at: Date.now() });
          notify();
        }
      }
    } catch {
      return 'broken';
    }
  })();
  return client;
}
