/** One server-sent event as the test client read it. */
export interface SseEvent {
  event: string;
  data: any;
}

export interface SseResponse {
  status: number;
  contentType: string | null;
  events: SseEvent[];
  /** Comment lines (heartbeats), without the leading colon. */
  comments: string[];
  /** The body as text when the server answered with JSON instead of a stream. */
  json: any;
  /** With `connectionBroken: 'record'`: why the stream broke before it ended (null when it ended). */
  error: string | null;
}

/**
 * POSTs to a streaming endpoint and reads the events as they arrive. `onEvent`
 * may return true to hang up right there (to test client disconnects). A stream
 * the server breaks off throws, unless `connectionBroken` is 'record' (to test
 * the server going away): then the events so far come back with the `error`.
 */
export async function postStream(
  url: string,
  body: unknown,
  options: {
    headers?: Record<string, string>;
    onEvent?: (event: SseEvent) => boolean | void;
    connectionBroken?: 'throw' | 'record';
  } = {},
): Promise<SseResponse> {
  const abort = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(body),
    signal: abort.signal,
  });
  const contentType = response.headers.get('content-type');
  const result: SseResponse = { status: response.status, contentType, events: [], comments: [], json: null, error: null };
  if (!contentType?.startsWith('text/event-stream')) {
    result.json = await response.json();
    return result;
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const parsed = parseBlock(block);
        if (parsed.comment !== null) result.comments.push(parsed.comment);
        if (parsed.event) {
          result.events.push(parsed.event);
          if (options.onEvent?.(parsed.event)) {
            abort.abort();
            return result;
          }
        }
      }
    }
  } catch (error) {
    if (abort.signal.aborted) return result;
    if (options.connectionBroken !== 'record') throw error;
    result.error = (error as Error).message;
  }
  return result;
}

function parseBlock(block: string): { event: SseEvent | null; comment: string | null } {
  let event = 'message';
  const data: string[] = [];
  let comment: string | null = null;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comment = line.slice(1).trim();
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  return { event: data.length > 0 ? { event, data: JSON.parse(data.join('\n')) } : null, comment };
}
