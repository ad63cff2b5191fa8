/**
 * What `npm run shop -- try` and the console's Tools page say when the arguments do
 * not fit the tool: each argument named, with what it expects and the value given,
 * instead of LangChain's "Received tool input did not match expected schema".
 */
import { argumentProblems } from '../../src/shop/tool-trial';

const schema = {
  type: 'object',
  properties: {
    orderId: { type: 'string', pattern: '^[0-9]{5}$' },
    status: { type: 'string', enum: ['processing', 'shipped'] },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    note: { type: ['string', 'null'], maxLength: 10 },
    body: { type: 'object', properties: { reason: { type: 'string', minLength: 3 } }, required: ['reason'], additionalProperties: false },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['orderId'],
};

test('names the argument, the pattern it must match and the value given', () => {
  expect(argumentProblems(schema, { orderId: 'kw10234' })).toEqual(['orderId: expected a string matching ^[0-9]{5}$, got "kw10234"']);
});

test('names a missing required argument, a value not in the list, a number out of range, a wrong type and a text too long', () => {
  expect(argumentProblems(schema, { status: 'lost', limit: 80, note: 'far too long a note' })).toEqual([
    'orderId: required, but not given',
    'status: expected one of "processing", "shipped", got "lost"',
    'limit: expected an integer of 1 to 50, got 80',
    'note: expected a string of at most 10 characters (or null), got "far too long a note"',
  ]);
  expect(argumentProblems(schema, { orderId: 10234 })).toEqual(['orderId: expected a string matching ^[0-9]{5}$, got 10234']);
  expect(argumentProblems(schema, { orderId: '10234', limit: 2.5 })).toEqual(['limit: expected an integer of 1 to 50, got 2.5']);
});

test('walks into an object body and a list, naming the path, and names a property the body does not take', () => {
  expect(argumentProblems(schema, { orderId: '10234', body: { reason: 'no', extra: 1 }, tags: ['a', 2] })).toEqual([
    'body.reason: expected a string of at least 3 characters, got "no"',
    'body.extra: not an argument of this tool (it takes reason)',
    'tags[1]: expected a string, got 2',
  ]);
  expect(argumentProblems(schema, { orderId: '10234', body: {} })).toEqual(['body.reason: required, but not given']);
});

test('arguments that fit give no problem, and a pattern JavaScript cannot compile is not held against the value', () => {
  expect(argumentProblems(schema, { orderId: '10234', status: 'shipped', limit: 5, note: null, body: { reason: 'late' }, tags: [] })).toEqual([]);
  expect(argumentProblems({ type: 'object', properties: { code: { type: 'string', pattern: '(?<' } } }, { code: 'x' })).toEqual([]);
});
