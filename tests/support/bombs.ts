/**
 * Compression bombs, made in the test: small files that inflate to hundreds of MiB. Each is
 * deflated chunk by chunk, so making one never holds its inflated size in memory.
 */
import zlib from 'node:zlib';

const MIB = 1024 * 1024;

/**
 * Deflates head + `mib` MiB of `fill` + tail without holding the whole: each piece is its own
 * run of deflate blocks (ended by a sync flush, so they join into one stream), the tail the
 * final block. Raw deflate (a zip entry) or with zlib's header and Adler-32 (a PDF stream).
 */
function deflateRepeated(head: string, fill: number, mib: number, tail: string, raw: boolean): { data: Buffer; crc: number; size: number } {
  const chunk = Buffer.alloc(MIB, fill);
  const flushed = (piece: Buffer) => zlib.deflateRawSync(piece, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const chunkDeflated = flushed(chunk);
  const headBytes = Buffer.from(head);
  const tailBytes = Buffer.from(tail);
  const body = [flushed(headBytes), ...Array.from({ length: mib }, () => chunkDeflated), zlib.deflateRawSync(tailBytes, { level: 9 })];
  let crc = zlib.crc32(headBytes);
  for (let k = 0; k < mib; k++) crc = zlib.crc32(chunk, crc);
  crc = zlib.crc32(tailBytes, crc);
  const size = headBytes.length + mib * MIB + tailBytes.length;
  if (raw) return { data: Buffer.concat(body), crc: crc >>> 0, size };
  const adler = adler32([headBytes, ...Array.from({ length: mib }, () => chunk), tailBytes]);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler >>> 0);
  return { data: Buffer.concat([Buffer.from([0x78, 0xda]), ...body, trailer]), crc: crc >>> 0, size };
}

function adler32(pieces: Buffer[]): number {
  let a = 1;
  let b = 0;
  for (const piece of pieces) {
    for (let k = 0; k < piece.length; k++) {
      a = (a + piece[k]!) % 65521;
      b = (b + a) % 65521;
    }
  }
  return ((b << 16) | a) >>> 0;
}

interface ZipEntry {
  name: string;
  data: Buffer;
  crc: number;
  size: number;
  method: 0 | 8;
}

function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt32LE(e.crc, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += 30 + name.length + e.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function stored(name: string, text: string): ZipEntry {
  const data = Buffer.from(text);
  return { name, data, crc: zlib.crc32(data) >>> 0, size: data.length, method: 0 };
}

/**
 * A .docx whose main part is named `word/main.bin` (so no `.xml` rule sees it) and inflates
 * to `mib` MiB: one paragraph of that many spaces-and-letters. A few hundred KB on disk.
 */
export function docxBomb(mib: number): Uint8Array {
  const main = deflateRepeated(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>',
    0x61,
    mib,
    '</w:t></w:r></w:p></w:body></w:document>',
    true,
  );
  return new Uint8Array(
    zip([
      stored(
        '[Content_Types].xml',
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/main.bin" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
      stored(
        '_rels/.rels',
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/main.bin"/></Relationships>',
      ),
      { name: 'word/main.bin', ...main, method: 8 },
    ]),
  );
}

/** A one-page PDF whose content stream is a Flate stream inflating to `mib` MiB (spaces, then one line of text). */
export function pdfBomb(mib: number): Uint8Array {
  const content = deflateRepeated('BT /F1 12 Tf 72 720 Td (Bomb) Tj ET\n', 0x20, mib, '\n', false).data;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, k) => {
    offsets.push(length);
    const piece =
      body === null
        ? Buffer.concat([Buffer.from(`${k + 1} 0 obj\n<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`), content, Buffer.from('\nendstream\nendobj\n')])
        : Buffer.from(`${k + 1} 0 obj\n${body}\nendobj\n`);
    parts.push(piece);
    length += piece.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return new Uint8Array(Buffer.concat(parts));
}
