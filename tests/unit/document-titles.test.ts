/**
 * A document's own title, not its file name: a PDF's /Title (or its XMP dc:title) and a
 * Word file's dc:title (document properties) become the stored title; the file name
 * is the title only when the document declares none. Real files, made by pdf-lib and docx.
 */
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { planDocument } from '../../src/knowledge/ingest';
import { convertDocument } from '../../src/knowledge/sources/convert';
import { docxToMarkdown } from '../../src/knowledge/sources/docx';
import { readPdf } from '../../src/knowledge/sources/pdf';

const MANUAL_TITLE = 'Harbor Lane Ceramics Care and Warranty Manual';

async function pdfWith(options: { title?: string; xmpTitle?: string }): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('Hand wash the glazed pieces with warm water and a soft cloth.', { x: 40, y: 720, size: 10, font });
  if (options.title !== undefined) doc.setTitle(options.title);
  if (options.xmpTitle !== undefined) {
    const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">${options.xmpTitle}</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    const stream = doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' });
    doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
  }
  return doc.save();
}

async function docxWith(options: { title?: string; heading?: string }): Promise<Uint8Array> {
  const children = [
    ...(options.heading ? [new Paragraph({ text: options.heading, heading: HeadingLevel.HEADING_1 })] : []),
    new Paragraph('Every piece carries a two year warranty against glaze crazing.'),
  ];
  const doc = new Document({ ...(options.title !== undefined && { title: options.title }), sections: [{ children }] });
  return new Uint8Array(await Packer.toBuffer(doc));
}

describe("a PDF's title", () => {
  it('is its /Title, kept through conversion and ingest', async () => {
    const bytes = await pdfWith({ title: `  ${MANUAL_TITLE} ` });
    expect((await readPdf(bytes)).title).toBe(MANUAL_TITLE);
    const converted = await convertDocument(bytes, 'pdf');
    expect(converted.title).toBe(MANUAL_TITLE);
    const plan = await planDocument({ source: 'manuals/harbor-lane-care-and-warranty.pdf', ...converted });
    expect(plan.title).toBe(MANUAL_TITLE);
  });

  it('is its XMP dc:title when it has no /Title', async () => {
    expect((await readPdf(await pdfWith({ xmpTitle: 'Glaze &amp; Kiln Notes' }))).title).toBe('Glaze & Kiln Notes');
  });

  it('falls back to the file name when the PDF declares none (or an empty or "Untitled" one)', async () => {
    for (const bytes of [await pdfWith({}), await pdfWith({ title: '   ' }), await pdfWith({ title: 'Untitled' })]) {
      const converted = await convertDocument(bytes, 'pdf');
      expect(converted.title).toBeNull();
      expect((await planDocument({ source: 'manuals/harbor-lane-care-and-warranty.pdf', ...converted })).title).toBe('harbor-lane-care-and-warranty');
    }
  });
});

describe("a Word file's title", () => {
  it("is its document properties' dc:title, before its first heading", async () => {
    const bytes = await docxWith({ title: 'Harbor Lane & Co. Warranty', heading: 'Warranty' });
    expect((await docxToMarkdown(bytes)).title).toBe('Harbor Lane & Co. Warranty');
    expect((await convertDocument(bytes, 'docx')).title).toBe('Harbor Lane & Co. Warranty');
  });

  it('is its first level-1 heading without one, else the file name', async () => {
    expect((await convertDocument(await docxWith({ heading: 'Warranty' }), 'docx')).title).toBe('Warranty');
    const untitled = await convertDocument(await docxWith({}), 'docx');
    expect(untitled.title).toBeNull();
    expect((await planDocument({ source: 'manuals/warranty-terms.docx', ...untitled })).title).toBe('warranty-terms');
  });
});
