/**
 * Odd values in a request's text fields get a 400 that names the field, never a 500. zod 4
 * runs a field's refine even after its pattern failed, so a refine that calls something
 * that throws (`Intl.DisplayNames.of('x')` does) turned `{"language":"x"}` into a 500.
 * Random strings of letters, digits, punctuation and non-ASCII go to the real app.
 */
import fc from 'fast-check';
import { startTestService, type TestService } from '../support/test-service';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ env: { KNOWLEDGE_SEED_DIR: 'none' } });
});
afterAll(async () => {
  await service?.close();
});

/** Letters, digits, punctuation, whitespace and characters from outside ASCII, short and long. */
const oddText = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...`-_'"; .,!?/\\@#%&*()[]{}<>|~\`+=:`), maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('x', '1', 'a b', 'und-', "en'--", 'de-AT', 'EN', 'en_US', 'zz', 'und', 'root', 'qaa', 'i-klingon', 'x-private', 'en-', '-en', 'ⅾe', 'ｄｅ', 'de\u0000'),
);

const CHAT_FIELDS = ['language', 'session_id', 'user_id', 'agent_type'] as const;

test('a chat request with any string in a text field is answered or refused with a 400 naming that field, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...CHAT_FIELDS), oddText, async (field, value) => {
      const { status, body } = await service.postChat({ message: 'How long does a refund take?', [field]: value });
      expect(status).toBeLessThan(500);
      if (status !== 200) {
        expect(status).toBe(400);
        expect(body.error.code).toBe('invalid_request');
        expect(body.error.message).toContain(field);
      }
    }),
    { numRuns: 150 },
  );
});

test.each(['x', '1', 'a b', 'und-', "en'--", 'zz'])('language %j is a 400 naming the field', async (language) => {
  const { status, body } = await service.postChat({ message: 'hi', language });
  expect(status).toBe(400);
  expect(body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('language') });
});
