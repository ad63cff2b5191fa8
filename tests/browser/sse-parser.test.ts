/**
 * The widget's text/event-stream parser. It has no DOM, so it runs here in Node;
 * the browser tests cover it again inside the widget.
 */
import { SseParser, type SseEvent } from '../../web/sse';

/** Feeds the chunks one by one and collects every event. */
function parse(...chunks: string[]): SseEvent[] {
  const parser = new SseParser();
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
}

const STREAM =
  ': stream open\n\nevent: sources\ndata: {"sources":[]}\n\n: ping\n\nevent: token\ndata: {"delta":"Hel"}\n\nevent: token\ndata: {"delta":"lo"}\n\nevent: done\ndata: {"response":"Hello"}\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'sources', data: '{"sources":[]}' },
  { event: 'token', data: '{"delta":"Hel"}' },
  { event: 'token', data: '{"delta":"lo"}' },
  { event: 'done', data: '{"response":"Hello"}' },
];

test('a whole stream gives its events in order, and heartbeat comments give none', () => {
  expect(parse(STREAM)).toEqual(EXPECTED);
});

test('the same events come out however the stream is cut into chunks, even one character at a time', () => {
  expect(parse(...STREAM.split(''))).toEqual(EXPECTED);
  for (let cut = 1; cut < STREAM.length; cut++) {
    expect(parse(STREAM.slice(0, cut), STREAM.slice(cut))).toEqual(EXPECTED);
  }
});

test('CRLF and CR line endings work, also when a CRLF is split between chunks', () => {
  const crlf = STREAM.replaceAll('\n', '\r\n');
  expect(parse(crlf)).toEqual(EXPECTED);
  expect(parse(...crlf.split(''))).toEqual(EXPECTED);
  expect(parse(STREAM.replaceAll('\n', '\r'))).toEqual(EXPECTED);
});

test('several data lines are joined with a newline, and one leading space of a value is dropped', () => {
  expect(parse('data:first\ndata:  second\n\n')).toEqual([{ event: 'message', data: 'first\n second' }]);
});

test('an event without data, an unknown field and an unfinished last event give nothing', () => {
  expect(parse('event: token\n\nid: 7\nretry: 100\n\nevent: token\ndata: {"delta":"cut off"}')).toEqual([]);
});
