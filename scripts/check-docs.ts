/**
 * npm run check:docs
 *
 * Keeps the documentation from drifting away from the code:
 *
 * - every relative link in README.md and docs/*.md names a file or folder that
 *   exists, and every `#anchor` names a heading of the page it points at (the
 *   anchors GitHub makes: lower-cased, punctuation dropped, spaces to hyphens,
 *   `-1`, `-2` … for repeated headings) or an explicit `<a id="…">`;
 * - every path of the repository those pages name in backticks (`src/…`,
 *   `tests/…`, `scripts/…`) exists;
 * - every environment variable src/config.ts reads (the keys of its zod schema,
 *   `environmentSchema`) has a row in a settings table of docs/configuration.md
 *   whose default cell shows the schema's default, and every variable those tables
 *   name is one the config reads.
 *
 * - two sentences that drifted once: docs/knowledge.md on what a page's links
 *   become (checked against what the HTML converter does with a link), and
 *   docs/api.md's `agent_type` (the shop file's agent keys, not a fixed list);
 * - docs/your-shop.md's table of every word a customer reads, with its English
 *   default, is what scripts/words-table.ts writes from src/shop/words/.
 *
 * tests/unit/docs.test.ts runs both as part of `npm test`. Each problem is one line
 * that says which link or setting is wrong and what to change.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { environmentSchema } from '../src/config';
import { htmlToMarkdown } from '../src/knowledge/sources/html';
import { loadSampleShop } from '../src/shop/sample-shop';
import { wordsTableDrift } from './words-table';

/** The Markdown files whose links are checked: README.md and every .md under docs/. */
export function documentationFiles(root: string): string[] {
  const docs = path.join(root, 'docs');
  const pages = existsSync(docs)
    ? readdirSync(docs, { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.md'))
        .map((name) => path.join(docs, name))
        .sort()
    : [];
  return [path.join(root, 'README.md'), ...pages].filter((file) => existsSync(file));
}

/** A Markdown text with fenced code blocks blanked out (line numbers kept): nothing in them is a heading or a link. */
function withoutCodeBlocks(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && opening) {
      fence = opening[1]![0]!.repeat(opening[1]!.length);
      return '';
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      return '';
    }
    return line;
  });
}

/** The anchor GitHub gives a heading's text (github-slugger, before de-duplication). */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: their alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCodeBlocks(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

/** The link targets of a page, with their line numbers; links inside code (fenced or inline) are not links. */
export function linksOf(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  withoutCodeBlocks(markdown).forEach((text, i) => {
    const line = text.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1]!, line: i + 1 });
    const reference = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (reference) links.push({ target: reference[1]!, line: i + 1 });
  });
  return links;
}

/** The anchor among `anchors` most like `wanted` (most shared characters in order), for the fix a message proposes. */
function closest(wanted: string, anchors: Set<string>): string | null {
  let best: string | null = null;
  let bestScore = 0;
  for (const anchor of anchors) {
    // Longest common subsequence, normalised by the longer length.
    const a = wanted;
    const b = anchor;
    let previous = new Array<number>(b.length + 1).fill(0);
    for (let i = 1; i <= a.length; i++) {
      const row = new Array<number>(b.length + 1).fill(0);
      for (let j = 1; j <= b.length; j++) row[j] = a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, row[j - 1]!);
      previous = row;
    }
    const score = previous[b.length]! / Math.max(a.length, b.length);
    if (score > bestScore) {
      bestScore = score;
      best = anchor;
    }
  }
  return bestScore >= 0.5 ? best : null;
}

/** Every relative link or anchor of the files that does not resolve, one line each (empty: all resolve). */
export function brokenLinks(files: string[], root: string): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8')));
    return anchorCache.get(file)!;
  };
  const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');

  for (const file of files) {
    for (const { target, line } of linksOf(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, mailto:: not ours to check
      const where = `${rel(file)}:${line}: the link "${target}"`;
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      let decoded: string;
      try {
        decoded = decodeURIComponent(pathPart);
      } catch {
        problems.push(`${where} is not a valid URL path: write spaces as %20 and nothing else encoded.`);
        continue;
      }
      const destination = decoded === '' ? file : path.resolve(path.dirname(file), decoded);
      if (!existsSync(destination)) {
        problems.push(
          `${where} points at ${rel(destination)}, which does not exist. ` +
            'Link to the file where the content lives now (paths are relative to the linking file), or restore the file.',
        );
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(destination).isDirectory() || !destination.endsWith('.md')) {
        problems.push(`${where} has the anchor #${anchor}, but ${rel(destination)} is not a Markdown page: drop the anchor.`);
        continue;
      }
      const anchors = anchorsIn(destination);
      if (!anchors.has(decodeURIComponent(anchor))) {
        const suggestion = closest(anchor, anchors);
        problems.push(
          `${where} points at #${anchor}, which no heading of ${rel(destination)} makes` +
            (suggestion ? ` (did you mean #${suggestion}?)` : '') +
            '. Change the link to the anchor of the heading as it is now, or add <a id="' + anchor + '"></a> where it should land ' +
            '(GitHub makes an anchor from a heading by lower-casing it, dropping punctuation and turning spaces into hyphens).',
        );
      }
    }
  }
  return problems;
}

/** The repository's own folders: a path in backticks that starts with one of them names a file of this repository. */
const REPOSITORY_FOLDERS = ['src', 'tests', 'scripts', 'web', 'supabase', 'knowledge', 'eval', 'docs', '.ci'];

/**
 * Every path of this repository named in backticks (`src/config.ts`,
 * `tests/unit/docs.test.ts`) that does not exist, one line each. Patterns
 * (`<key>`, `*`, `{…}`, `…`) are not paths and are left alone.
 */
export function missingPaths(files: string[], root: string): string[] {
  const problems: string[] = [];
  const named = new RegExp('`((?:' + REPOSITORY_FOLDERS.map((f) => f.replace('.', '\\.')).join('|') + ')/[^`\\s]*)`', 'g');
  for (const file of files) {
    withoutCodeBlocks(readFileSync(file, 'utf8')).forEach((line, i) => {
      for (const m of line.matchAll(named)) {
        const mention = m[1]!;
        if (/[<>*{}…$]/.test(mention)) continue;
        const relative = mention.replace(/:\d+$/, '').replace(/[#?].*$/, '');
        if (!existsSync(path.join(root, relative))) {
          problems.push(
            `${path.relative(root, file).split(path.sep).join('/')}:${i + 1}: \`${mention}\` names a path that does not exist: ` +
              'write where it lives now (from the repository root), or drop it.',
          );
        }
      }
    });
  }
  return problems;
}

/** A settings table row of docs/configuration.md: the variables of its first cell and its default cell. */
export interface DocumentedSetting {
  names: string[];
  defaultCell: string;
  line: number;
}

const VARIABLE = /`([A-Z][A-Z0-9_]*[A-Z0-9])`/g;

/** The rows of every table whose header begins `| variable | default |`. */
export function documentedSettings(markdown: string): DocumentedSetting[] {
  const rows: DocumentedSetting[] = [];
  let inTable = false;
  withoutCodeBlocks(markdown).forEach((text, i) => {
    const line = text.trim();
    if (/^\|\s*variable\s*\|\s*default\s*\|/i.test(line)) {
      inTable = true;
      return;
    }
    if (!line.startsWith('|')) {
      inTable = false;
      return;
    }
    if (!inTable || /^\|\s*-{3,}/.test(line)) return;
    const cells = line.replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim());
    rows.push({ names: [...cells[0]!.matchAll(VARIABLE)].map((m) => m[1]!), defaultCell: cells[1] ?? '', line: i + 1 });
  });
  return rows;
}

/** The schema's default of one variable, or undefined when it has none (optional: unset means something the docs say). */
export function schemaDefault(schema: z.ZodType): { value: unknown } | undefined {
  const def = (schema as unknown as { _zod: { def: { type: string; defaultValue?: unknown; innerType?: z.ZodType } } })._zod.def;
  if (def.type === 'default') return { value: def.defaultValue };
  if (def.type === 'optional' && def.innerType) return schemaDefault(def.innerType);
  return undefined;
}

/** How a default is written in the table: in backticks, or the word "empty" for an empty string. */
export function formatDefault(value: unknown): string {
  return value === '' ? 'empty' : `\`${String(value)}\``;
}

/**
 * Every mismatch between the config's schema and the settings tables of
 * docs/configuration.md, one line each (empty: they agree).
 */
export function configurationDrift(shape: Record<string, z.ZodType>, markdown: string, docName = 'docs/configuration.md'): string[] {
  const problems: string[] = [];
  const rows = documentedSettings(markdown);
  const rowOf = new Map<string, DocumentedSetting>();
  for (const row of rows) {
    for (const name of row.names) {
      if (rowOf.has(name)) problems.push(`${docName}:${row.line}: ${name} has a second row (first at line ${rowOf.get(name)!.line}): keep one.`);
      else rowOf.set(name, row);
    }
  }
  if (rows.length === 0) problems.push(`${docName} has no settings table: one whose header row begins "| variable | default |".`);

  for (const [name, schema] of Object.entries(shape)) {
    const row = rowOf.get(name);
    const fallback = schemaDefault(schema);
    if (!row) {
      const cell = fallback ? formatDefault(fallback.value) : 'unset';
      problems.push(
        `${name} is read by src/config.ts but not documented: add a row "| \`${name}\` | ${cell} | what it does, its unit and allowed values |" ` +
          `to the settings table of ${docName}` +
          (fallback ? '.' : ' (the default cell says what happens when it is unset).'),
      );
      continue;
    }
    if (fallback) {
      const expected = formatDefault(fallback.value);
      if (!row.defaultCell.includes(expected)) {
        problems.push(
          `${docName}:${row.line}: ${name}'s default is ${expected} in src/config.ts, but the table says "${row.defaultCell}": ` +
            `write ${expected} in its default cell (or change the default in the schema).`,
        );
      }
    } else if (row.defaultCell === '') {
      problems.push(`${docName}:${row.line}: ${name} has no default in src/config.ts: its default cell must say what unset means (e.g. "unset").`);
    }
  }
  for (const [name, row] of rowOf) {
    if (!(name in shape)) {
      problems.push(
        `${docName}:${row.line}: ${name} is documented but src/config.ts does not read it: remove it from the table, ` +
          'or add it to environmentSchema in src/config.ts.',
      );
    }
  }
  return problems;
}

/** What a page's links say they become: their address kept, or their text alone. */
const LINKS_KEEP_ADDRESS = /links keep their text and their address/i;
const LINKS_KEEP_TEXT_ONLY = /links keep their text,? not their address|links keep (?:only )?their text\b(?! and)/i;

/**
 * docs/knowledge.md's sentence on links against the HTML converter: a link in a page
 * is converted, and the sentence must say what happened to its address.
 */
export async function linksSentenceDrift(knowledgeMarkdown: string, docName = 'docs/knowledge.md'): Promise<string[]> {
  const address = 'https://help.example.com/hc/warranty';
  const page = await htmlToMarkdown(
    `<html><body><article><h1>Care</h1><p>Hand wash the glazed pieces and read <a href="${address}">the warranty page</a> before you send one back.</p></article></body></html>`,
    'https://help.example.com/hc/care',
  );
  const keepsAddress = page.markdown.includes(address);
  const saysAddress = LINKS_KEEP_ADDRESS.test(knowledgeMarkdown);
  const saysTextOnly = LINKS_KEEP_TEXT_ONLY.test(knowledgeMarkdown);
  if (keepsAddress && (!saysAddress || saysTextOnly)) {
    return [`${docName}: the HTML converter keeps a link's address ([text](url)), but the page ${saysTextOnly ? 'says links keep their text only' : 'does not say so'}: write "links keep their text and their address".`];
  }
  if (!keepsAddress && (saysAddress || !saysTextOnly)) {
    return [`${docName}: the HTML converter keeps a link's text only, but the page ${saysAddress ? 'says links keep their address' : 'does not say so'}: write "links keep their text, not their address".`];
  }
  return [];
}

/**
 * docs/api.md's `agent_type` row: its values are the keys of the shop file's agents,
 * so the row must say so, and must not give one shop's keys as the only values.
 */
export function agentTypeSentenceDrift(apiMarkdown: string, sampleAgentKeys: string[], docName = 'docs/api.md'): string[] {
  const lines = apiMarkdown.split('\n');
  const index = lines.findIndex((line) => line.startsWith('| `agent_type` |'));
  if (index < 0) return [`${docName}: no table row for \`agent_type\` in POST /api/v1/chat: add one.`];
  const valuesCell = lines[index]!.split('|')[2]!.trim();
  const problems: string[] = [];
  if (!/shop file/i.test(valuesCell) || !/agents/.test(valuesCell) || !/key/.test(valuesCell)) {
    problems.push(`${docName}:${index + 1}: agent_type's values are the \`key\`s of the shop file's \`agents\` (src/shop/shop-file.ts), not "${valuesCell}": say so.`);
  }
  const listed = [...valuesCell.matchAll(/`([a-z0-9_-]+)`/gi)].map((m) => m[1]!);
  const closedList = /^(?:`[^`]+`(?: \(default\))?(?:,| or|, or)? ?)+$/.test(valuesCell);
  if (closedList && sampleAgentKeys.every((key) => listed.includes(key))) {
    problems.push(`${docName}:${index + 1}: agent_type lists the sample shop's agents (${listed.join(', ')}) as its only values: another shop's are its shop file's keys.`);
  }
  return problems;
}

if (require.main === module) {
  void (async () => {
    const root = path.resolve(__dirname, '..');
    const problems = [
      ...brokenLinks(documentationFiles(root), root),
      ...missingPaths(documentationFiles(root), root),
      ...configurationDrift(environmentSchema.shape, readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8')),
      ...(await linksSentenceDrift(readFileSync(path.join(root, 'docs', 'knowledge.md'), 'utf8'))),
      ...agentTypeSentenceDrift(readFileSync(path.join(root, 'docs', 'api.md'), 'utf8'), loadSampleShop().agents.map((a) => a.key)),
      ...wordsTableDrift(readFileSync(path.join(root, 'docs', 'your-shop.md'), 'utf8')),
    ];
    if (problems.length > 0) {
      console.error(problems.join('\n'));
      process.exit(1);
    }
    console.log(
      `Docs agree with the code: links, anchors and paths of ${documentationFiles(root).length} pages, every setting of src/config.ts, ` +
        'the links sentence of docs/knowledge.md, agent_type in docs/api.md and the table of words in docs/your-shop.md.',
    );
  })();
}
