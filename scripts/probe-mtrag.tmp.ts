import fs from 'node:fs';
import path from 'node:path';
import { plainBm25 } from './lib/plain-bm25';
import { tokenizeWords } from '../src/knowledge/words';
const seg = new Intl.Segmenter(undefined, { granularity: 'word' });
const mode = process.env.WORDS ?? 'english';
const words = (t: string) => mode === 'english' ? tokenizeWords(t) : [...seg.segment(t.toLowerCase())].filter((s) => s.isWordLike).map((s) => s.segment);
const q = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN; };
for (const set of process.argv.slice(2)) {
  const dir = `/work/shared/eval/${set}`;
  const docsDir = path.join(dir, 'docs');
  const files = fs.readdirSync(docsDir);
  const docWords = new Map(files.map((f) => [f, new Set(words(fs.readFileSync(path.join(docsDir, f), 'utf8')))]));
  const df = new Map<string, number>();
  for (const ws of docWords.values()) for (const w of ws) df.set(w, (df.get(w) ?? 0) + 1);
  const n = files.length;
  const idf = (w: string) => Math.log(1 + (n - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
  const bm = plainBm25(docsDir);
  const cov = (qt: string, f: string) => { const qw = [...new Set(words(qt))]; const tot = qw.reduce((a, w) => a + idf(w), 0); const d = docWords.get(f)!; return tot ? qw.filter((w) => d.has(w)).reduce((a, w) => a + idf(w), 0) / tot : 0; };
  const by = new Map<string, number[]>();
  for (const line of fs.readFileSync(path.join(dir, 'cases.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const c = JSON.parse(line);
    for (const t of [...c.turns, ...(c.skipped_turns ?? [])]) {
      const top = bm.rank(t.user).slice(0, 5);
      const best = Math.max(0, ...top.map((f: string) => cov(t.user, f)));
      const label = t.answerability ?? '?';
      by.set(label, [...(by.get(label) ?? []), best]);
    }
  }
  const ua = path.join(dir, 'unanswerable.jsonl');
  if (fs.existsSync(ua)) for (const line of fs.readFileSync(ua, 'utf8').split('\n').filter(Boolean)) {
    const t = JSON.parse(line); const top = bm.rank(t.user).slice(0, 5);
    by.set('UNANSWERABLE', [...(by.get('UNANSWERABLE') ?? []), Math.max(0, ...top.map((f: string) => cov(t.user, f)))]);
  }
  for (const [label, xs] of by) console.log(`${set.padEnd(14)} ${label.padEnd(14)} n=${String(xs.length).padEnd(4)} p10 ${q(xs, .1).toFixed(3)} p25 ${q(xs, .25).toFixed(3)} p50 ${q(xs, .5).toFixed(3)} p75 ${q(xs, .75).toFixed(3)} p90 ${q(xs, .9).toFixed(3)}`);
  for (const t of [0.25, 0.3, 0.35, 0.4, 0.45, 0.5]) console.log(`  <${t}: ` + [...by].map(([l, xs]) => `${l} ${(100 * xs.filter((x) => x < t).length / xs.length).toFixed(0)}%`).join(' '));
}
