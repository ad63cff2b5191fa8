/**
 * npm run bench:redaction: what redaction alone costs per message, in CPU
 * time (process.cpuUsage, so other processes on a busy machine do not count), for each
 * adversarial class (tests/support/adversarial-text.ts) and a text of pasted card
 * forms (no-break spaces, full-width digits, glued letters, dates, order numbers,
 * phone numbers, line breaks), at MESSAGE_MAX_CHARS=4000 and 100000, with
 * REDACT=card,iban. The median of RUNS calls after two warm-up calls.
 *
 * bench:adversarial measures whole turns, of which redaction is a small part; this is
 * the part itself, so a detector that turns quadratic shows here first.
 *
 * Writes its table into BENCHMARKS.md (section bench-redaction).
 */
import os from 'node:os';
import path from 'node:path';
import { Redactor } from '../src/privacy/redaction';
import { ADVERSARIAL_CLASSES, ADVERSARIAL_CLASS_NAMES, randomWhitespace } from '../tests/support/adversarial-text';
import { writeMarkedSection } from './lib/benchmarks-file';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 30);
const SIZES = [4000, 100_000];
const BENCHMARKS_FILE = path.resolve(__dirname, '../BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-redaction:start -->', end: '<!-- bench-redaction:end -->' };

/** Card numbers as pasted, between ordinary digits, repeated to `length` characters. */
function pastedCardForms(length: number): string {
  const parts = ['4242\u00a04242\u00a04242\u00a04242 ', 'Visa4000056655665556 ', '４２４２ ４２４２ ４２４２ ４２４２ ', '25.11.2026 ', 'ZX-14440 ', '+49 1512 3456789\n'];
  let text = '';
  for (let i = 0; text.length < length; i++) text += parts[i % parts.length];
  return text.slice(0, length);
}

function medianCpuMs(redactor: Redactor, text: string): number {
  redactor.redact(text);
  redactor.redact(text);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.cpuUsage();
    redactor.redact(text);
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function main(): void {
  const redactor = new Redactor(['card', 'iban']);
  const rows: Array<{ size: number; kind: string; ms: number; masked: number }> = [];
  for (const size of SIZES) {
    const texts: Array<[string, string]> = [
      ...ADVERSARIAL_CLASS_NAMES.map((k): [string, string] => [k, ADVERSARIAL_CLASSES[k](size)]),
      ['random_whitespace', randomWhitespace(size)],
      ['pasted_card_forms', pastedCardForms(size)],
    ];
    for (const [kind, text] of texts) {
      const found = redactor.redact(text).found;
      rows.push({ size, kind, ms: medianCpuMs(redactor, text), masked: (found.card ?? 0) + (found.iban ?? 0) });
    }
  }
  const lines = [
    MARKERS.start,
    '## `npm run bench:redaction` (redaction alone)',
    '',
    `CPU time of one \`Redactor(['card', 'iban']).redact(text)\` (median of ${RUNS}), per adversarial class and a text of pasted card forms.`,
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| class | CPU ms at 4,000 chars | CPU ms at 100,000 chars | masked at 100,000 |',
    '| --- | ---: | ---: | ---: |',
    ...[...new Set(rows.map((r) => r.kind))].map((kind) => {
      const [small, large] = SIZES.map((size) => rows.find((r) => r.kind === kind && r.size === size)!);
      return `| ${kind} | ${small!.ms.toFixed(2)} | ${large!.ms.toFixed(2)} | ${large!.masked} |`;
    }),
    MARKERS.end,
  ];
  const section = lines.join('\n');
  console.log(section);
  writeMarkedSection(BENCHMARKS_FILE, MARKERS, section);
  process.stderr.write(`recorded in ${path.relative(process.cwd(), BENCHMARKS_FILE)}\n`);
}

main();
