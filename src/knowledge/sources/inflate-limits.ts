import zlib from 'node:zlib';
import JSZip from 'jszip';
import { DocumentSkipped } from './errors';

/**
 * Caps on what a document's compressed parts really inflate to. A .docx is a zip and a PDF
 * holds Flate streams: a few hundred kilobytes can inflate to gigabytes, and the sizes a
 * file declares can lie. So each part is inflated here first, counting the bytes as they
 * come and dropping them, and stopped at the cap: the converters then never meet a part
 * larger than the cap.
 */

/** Any one entry of a Word file (whatever its name) inflates to at most this. */
export const DOCX_MAX_ENTRY_BYTES = 50 * 1024 * 1024;
/** All entries of a Word file together. */
export const DOCX_MAX_TOTAL_BYTES = 100 * 1024 * 1024;
/** Any one Flate stream of a PDF. */
export const PDF_MAX_STREAM_BYTES = 64 * 1024 * 1024;
/** All Flate streams of a PDF together. */
export const PDF_MAX_TOTAL_BYTES = 256 * 1024 * 1024;

const MIB = 1024 * 1024;

/**
 * Throws DocumentSkipped('too_large') when an entry of the zip inflates past maxEntry bytes or
 * all of them past maxTotal. Reads the zip with JSZip, as mammoth does, so the bytes counted
 * are the bytes mammoth would read. A file JSZip cannot open passes (mammoth refuses it).
 */
export async function checkDocxInflation(bytes: Uint8Array, maxEntry = DOCX_MAX_ENTRY_BYTES, maxTotal = DOCX_MAX_TOTAL_BYTES): Promise<void> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch {
    return;
  }
  let total = 0;
  for (const entry of Object.values(zip.files)) {
    if (entry.dir) continue;
    const size = await countStream(entry.nodeStream('nodebuffer') as NodeJS.ReadableStream & { destroy?: () => void }, Math.min(maxEntry, maxTotal - total));
    if (size > maxEntry) throw tooLarge(`its part ${entry.name} inflates to more than ${maxEntry / MIB} MiB`);
    total += size;
    if (total > maxTotal) throw tooLarge(`its parts inflate to more than ${maxTotal / MIB} MiB together`);
  }
}

/**
 * Throws DocumentSkipped('too_large') when a Flate stream of the PDF inflates past maxStream
 * bytes, or all of them past maxTotal. Every `stream` keyword is taken as a stream's start
 * (whatever its /Length says) and inflated until the Flate data ends; data that is not Flate
 * stops at once and counts nothing.
 */
export async function checkPdfStreams(bytes: Uint8Array, maxStream = PDF_MAX_STREAM_BYTES, maxTotal = PDF_MAX_TOTAL_BYTES): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  for (let at = buffer.indexOf('stream'); at >= 0; at = buffer.indexOf('stream', at + 6)) {
    if (at >= 3 && buffer.toString('latin1', at - 3, at) === 'end') continue;
    // The data starts after the keyword's end of line (CRLF or LF; a lone CR is tolerated).
    let start = at + 6;
    if (buffer[start] === 0x0d) start += 1;
    if (buffer[start] === 0x0a) start += 1;
    if (start >= buffer.length) break;
    const size = await countStream(inflating(buffer.subarray(start)), Math.min(maxStream, maxTotal - total));
    if (size > maxStream) throw tooLarge(`a stream inflates to more than ${maxStream / MIB} MiB`);
    total += size;
    if (total > maxTotal) throw tooLarge(`its streams inflate to more than ${maxTotal / MIB} MiB together`);
  }
}

function inflating(data: Buffer): zlib.Inflate {
  const inflate = zlib.createInflate();
  inflate.end(data);
  return inflate;
}

/** Bytes a stream yields, counted and dropped; stops reading once past `cap` (and answers a count past it). An error ends the count. */
function countStream(stream: NodeJS.ReadableStream & { destroy?: () => void }, cap: number): Promise<number> {
  return new Promise((resolve) => {
    let count = 0;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      resolve(count);
    };
    stream.on('data', (chunk: Buffer) => {
      count += chunk.length;
      if (count > cap && !done) {
        end();
        stream.removeAllListeners('data');
        stream.pause();
        stream.destroy?.();
      }
    });
    stream.on('end', end);
    stream.on('error', end);
    stream.on('close', end);
  });
}

function tooLarge(why: string): DocumentSkipped {
  return new DocumentSkipped('too_large', `The file is a compression bomb or too large to read: ${why}.`);
}
