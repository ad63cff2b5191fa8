/** One Server-Sent Event: its name (`message` when the stream gives none) and its data. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Splits a text/event-stream into events as its chunks arrive; a chunk may end
 * anywhere, even between the \r and \n of one line ending. Follows the WHATWG
 * rules: comment lines (": ping") are skipped, data lines are joined with "\n",
 * an event is dispatched at a blank line, and an unfinished event at the end of
 * the stream is dropped.
 */
export class SseParser {
  private buffer = '';
  private eventName = '';
  private dataLines: string[] = [];

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    this.buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const lineEnd = /\r\n|\r|\n/.exec(this.buffer);
      if (!lineEnd) break;
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (lineEnd[0] === '\r' && lineEnd.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, lineEnd.index);
      this.buffer = this.buffer.slice(lineEnd.index + lineEnd[0].length);
      const event = this.readLine(line);
      if (event) events.push(event);
    }
    return events;
  }

  /** The stream ended: a last lone \r was a line ending after all. An unfinished event is dropped. */
  end(): SseEvent[] {
    return this.buffer.endsWith('\r') ? this.push('\n') : [];
  }

  private readLine(line: string): SseEvent | null {
    if (line === '') {
      const event = this.dataLines.length > 0 ? { event: this.eventName || 'message', data: this.dataLines.join('\n') } : null;
      this.eventName = '';
      this.dataLines = [];
      return event;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.eventName = value;
    else if (field === 'data') this.dataLines.push(value);
    return null; // id and retry do not matter to a single POST stream
  }
}
