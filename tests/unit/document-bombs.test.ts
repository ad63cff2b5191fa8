/**
 * Issue 34, item 6: compression bombs in files. A .docx whose main part (named
 * `word/main.bin`, so no `.xml` rule sees it) inflates to 300 MiB, and a PDF with a
 * 200 MiB Flate stream, each a few hundred KB, are refused with their reason while the
 * process's resident memory stays bounded. Conversion runs in a worker thread with a time
 * budget: a conversion past it is refused too.
 */
import { convertDocument, DocumentSkipped, HTML_MAX_BYTES } from '../../src/knowledge/sources/convert';
import { docxBomb, pdfBomb } from '../support/bombs';
import { policyDocx, threePagePdf } from '../support/documents';

/** Growth of the resident set allowed while a bomb is read (the bombs inflate to 200–300 MiB). */
const MAX_GROWTH_MB = 150;

/** Runs `work`, sampling the process's resident memory every 5 ms; the peak growth over the start, in MB. */
async function peakGrowth(work: () => Promise<unknown>): Promise<{ growthMb: number; error: unknown }> {
  global.gc?.();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  let error: unknown = null;
  try {
    await work();
  } catch (e) {
    error = e;
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return { growthMb: (peak - baseline) / 1024 / 1024, error };
}

beforeAll(async () => {
  // The worker starts (and loads its converters) outside the measured part.
  await convertDocument(await policyDocx(), 'docx');
}, 120_000);

describe('compression bombs are refused with their reason, in bounded memory', () => {
  test('a .docx whose word/main.bin inflates to 300 MiB', async () => {
    const bomb = docxBomb(300);
    expect(bomb.byteLength).toBeLessThan(400 * 1024);
    const { growthMb, error } = await peakGrowth(() => convertDocument(bomb, 'docx', { maxBytes: 10 * 1024 * 1024 }));
    expect(error).toBeInstanceOf(DocumentSkipped);
    expect((error as DocumentSkipped).reason).toBe('too_large');
    expect((error as Error).message).toMatch(/word\/main\.bin inflates to more than 50 MiB/);
    expect(growthMb).toBeLessThan(MAX_GROWTH_MB);
  }, 120_000);

  test('a PDF with a 200 MiB Flate stream', async () => {
    const bomb = pdfBomb(200);
    expect(bomb.byteLength).toBeLessThan(300 * 1024);
    const { growthMb, error } = await peakGrowth(() => convertDocument(bomb, 'pdf', { maxBytes: 10 * 1024 * 1024 }));
    expect(error).toBeInstanceOf(DocumentSkipped);
    expect((error as DocumentSkipped).reason).toBe('too_large');
    expect((error as Error).message).toMatch(/a stream inflates to more than 64 MiB/);
    expect(growthMb).toBeLessThan(MAX_GROWTH_MB);
  }, 120_000);

  test('a small Flate stream and an ordinary PDF and .docx still convert', async () => {
    const small = await convertDocument(pdfBomb(1), 'pdf');
    expect(small.parts).toEqual([{ markdown: 'Bomb', page: 1 }]);
    expect((await convertDocument(await threePagePdf(), 'pdf')).parts.map((p) => p.page)).toEqual([1, 2, 3]);
    expect((await convertDocument(await policyDocx(), 'docx')).title).toBe('Warranty policy');
  }, 120_000);
});

describe('conversion off the event loop, within a time budget', () => {
  test('a conversion that runs past its budget is stopped and refused; the next one works', async () => {
    const page = `<html><body><main>${'<div><p>Deeply <b>nested</b> text, over and over.</p>'.repeat(20_000)}${'</div>'.repeat(20_000)}</main></body></html>`;
    const error = await convertDocument(Buffer.from(page), 'html', { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DocumentSkipped);
    expect((error as DocumentSkipped).reason).toBe('too_large');
    expect((error as Error).message).toMatch(/took longer than 50 ms/);
    const after = await convertDocument(Buffer.from('<main><h1>Still here</h1><p>The worker was replaced.</p></main>'), 'html');
    expect(after.title).toBe('Still here');
  }, 120_000);

  test('an HTML page over HTML_MAX_BYTES (2 MiB) is not parsed', async () => {
    expect(HTML_MAX_BYTES).toBe(2 * 1024 * 1024);
    const page = Buffer.from(`<p>${'x'.repeat(HTML_MAX_BYTES)}</p>`);
    await expect(convertDocument(page, 'html', { maxBytes: 10 * 1024 * 1024 })).rejects.toMatchObject({ reason: 'too_large' });
  });
});
