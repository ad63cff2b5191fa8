import fs from 'node:fs';
import path from 'node:path';
import { hashingVector } from '../src/knowledge/embeddings';
const file = process.argv[2]!;
const rows = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const seg = new Intl.Segmenter(undefined, { granularity: 'word' });
const words = (t: string) => [...seg.segment(t.toLowerCase())].filter((s) => s.isWordLike).map((s) => s.segment);
// df from each set's docs (reference only)
const dfCache = new Map<string, { df: Map<string, number>; n: number }>();
function dfOf(set: string) {
  if (dfCache.has(set)) return dfCache.get(set)!;
  const dir = path.join('/work/shared/eval', set, 'docs');
  const df = new Map<string, number>();
  const files = fs.readdirSync(dir);
  for (const f of files) for (const w of new Set(words(fs.readFileSync(path.join(dir, f), 'utf8')))) df.set(w, (df.get(w) ?? 0) + 1);
  const r = { df, n: files.length };
  dfCache.set(set, r);
  return r;
}
function cos(a: number[], b: number[]) { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!; return s; }
function fnv(text: string) { let h = 0x811c9dc5; for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193); } return h >>> 0; }
function hvw(ws: string[]) {
  const counts = new Map<string, number>(); for (const w of ws) counts.set(w, (counts.get(w) ?? 0) + 1);
  const v = new Array<number>(1536).fill(0);
  for (const [f, c] of counts) { const h = fnv(f); v[(h >>> 1) % 1536]! += (h & 1 ? 1 : -1) * (1 + Math.log(c)); }
  const n = Math.hypot(...v); return n ? v.map((x) => x / n) : v;
}
type F = Record<string, number>;
const feats: { set: string; label: string; f: F }[] = [];
for (const r of rows) {
  const s = r.searches[0];
  if (!s) continue;
  const q = r.user as string;
  const qw = [...new Set(words(q))];
  const docs = s.documents as any[];
  const { df, n } = dfOf(r.set);
  const idf = (w: string) => Math.log(1 + (n - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
  let hash = 0, cov = 0, icov = 0, hash2 = 0, hcov = 0;
  const qh2 = hvw(words(q));
  const qh = hashingVector(q);
  for (const d of docs) {
    const pw = new Set(words(d.content));
    hash = Math.max(hash, cos(qh, hashingVector(d.content)));
    hash2 = Math.max(hash2, cos(qh2, hvw(words(d.content))));
    // coverage with a local idf: df over the retrieved passages' documents
    const docsWords = docs.map((x) => new Set(words(x.content)));
    const lidf = (w: string) => Math.log(1 + docsWords.length / (1 + docsWords.filter((x) => x.has(w)).length));
    const lt = qw.reduce((a, w) => a + lidf(w), 0);
    hcov = Math.max(hcov, lt ? qw.filter((w) => pw.has(w)).reduce((a, w) => a + lidf(w), 0) / lt : 0);
    const inP = qw.filter((w) => pw.has(w));
    cov = Math.max(cov, qw.length ? inP.length / qw.length : 0);
    const tot = qw.reduce((a, w) => a + idf(w), 0);
    icov = Math.max(icov, tot ? inP.reduce((a, w) => a + idf(w), 0) / tot : 0);
  }
  const label = r.answerability ?? (r.judged ? 'ANSWERABLE' : 'X');
  feats.push({ set: r.set, label, f: { conf: r.confidence, hash, cov, icov, hash2, hcov } });
}
const sets = [...new Set(feats.map((x) => x.set))];
const q = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN; };
for (const name of (process.env.FEATS ?? 'conf,hash,cov,icov,hash2,hcov').split(',')) {
  console.log(`== ${name}`);
  for (const set of sets) for (const label of ['ANSWERABLE', 'PARTIAL', 'UNANSWERABLE']) {
    const xs = feats.filter((x) => x.set === set && x.label === label).map((x) => x.f[name]!);
    if (!xs.length) continue;
    console.log(`${set.padEnd(14)} ${label.padEnd(13)} n=${String(xs.length).padEnd(4)} p10 ${q(xs, .1).toFixed(3)} p25 ${q(xs, .25).toFixed(3)} p50 ${q(xs, .5).toFixed(3)} p75 ${q(xs, .75).toFixed(3)} p90 ${q(xs, .9).toFixed(3)}`);
  }
}
const thr = process.argv[3];
if (thr) {
  const [name, t] = thr.split('=');
  for (const set of sets) {
    const a = feats.filter((x) => x.set === set && x.label === 'ANSWERABLE'); const u = feats.filter((x) => x.set === set && x.label === 'UNANSWERABLE');
    const e = (xs: typeof feats) => xs.length ? (100 * xs.filter((x) => x.f[name!]! < Number(t)).length / xs.length).toFixed(1) : '-';
    console.log(`${set} ${name}<${t}: answerable escalated ${e(a)}% unanswerable ${e(u)}%`);
  }
}
