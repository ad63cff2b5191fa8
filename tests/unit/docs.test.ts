import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { agentTypeSentenceDrift, anchorsOf, brokenLinks, configurationDrift, documentationFiles, githubSlug, linksSentenceDrift, missingPaths } from '../../scripts/check-docs';
import { loadSampleShop } from '../../src/shop/sample-shop';
import { wordsTable, wordsTableDrift, withWordsTable } from '../../scripts/words-table';
import { environmentSchema } from '../../src/config';

const repoRoot = path.resolve(__dirname, '../..');

// Each check prints its problems as the failure, one line each, saying what to change.
describe('the documentation agrees with the code (scripts/check-docs.ts)', () => {
  it('every relative link and #anchor in README.md and docs/ resolves', () => {
    const files = documentationFiles(repoRoot);
    expect(files.map((f) => path.relative(repoRoot, f))).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md']));
    expect(brokenLinks(files, repoRoot).join('\n')).toBe('');
  });

  it('every repository path named in backticks (`src/…`, `tests/…`) exists', () => {
    expect(missingPaths(documentationFiles(repoRoot), repoRoot).join('\n')).toBe('');
  });

  it('docs/configuration.md lists exactly the settings src/config.ts reads, with their defaults', () => {
    const markdown = readFileSync(path.join(repoRoot, 'docs', 'configuration.md'), 'utf8');
    expect(configurationDrift(environmentSchema.shape, markdown).join('\n')).toBe('');
  });

  it("docs/knowledge.md says what the HTML converter does with a link's address", async () => {
    expect((await linksSentenceDrift(readFileSync(path.join(repoRoot, 'docs', 'knowledge.md'), 'utf8'))).join('\n')).toBe('');
  });

  it("docs/api.md's agent_type names the shop file's agent keys, not one shop's", () => {
    const keys = loadSampleShop().agents.map((a) => a.key);
    expect(agentTypeSentenceDrift(readFileSync(path.join(repoRoot, 'docs', 'api.md'), 'utf8'), keys).join('\n')).toBe('');
  });

  it('docs/your-shop.md lists every word a customer reads with its default, as the code has them', () => {
    expect(wordsTableDrift(readFileSync(path.join(repoRoot, 'docs', 'your-shop.md'), 'utf8'))).toEqual([]);
  });

  it('links every page of docs/ from the README, so that each topic is one click away', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const unlinked = documentationFiles(repoRoot)
      .map((f) => path.relative(repoRoot, f).split(path.sep).join('/'))
      .filter((f) => f.startsWith('docs/') && !readme.includes(`](${f})`))
      .map((f) => `${f} is not linked from README.md: add a row "| what it covers | [${f}](${f}) |" to the table under "Documentation".`);
    expect(unlinked.join('\n')).toBe('');
  });
});

describe('the two sentence checks, on sentences of their own', () => {
  it('find the links sentence that says addresses are dropped while the converter keeps them', async () => {
    expect(await linksSentenceDrift('- links keep their text, not their address (addresses add noise).')).toEqual([expect.stringContaining('keeps a link\'s address')]);
    expect(await linksSentenceDrift('- links are kept.')).toEqual([expect.stringContaining('does not say so')]);
    expect(await linksSentenceDrift('- links keep their text and their address (`[text](url)`).')).toEqual([]);
  });

  it("find an agent_type row that lists the sample shop's agents as the only values", () => {
    const keys = ['support', 'orders'];
    const row = (cell: string) => `| field | type | |\n| --- | --- | --- |\n| \`agent_type\` | ${cell} | optional |\n`;
    expect(agentTypeSentenceDrift(row('`support` (default) or `orders`'), keys)).toHaveLength(2);
    expect(agentTypeSentenceDrift(row("the `key` of one of the shop file's `agents` (the first is the default)"), keys)).toEqual([]);
    expect(agentTypeSentenceDrift('no table here', keys)).toEqual([expect.stringContaining('no table row')]);
  });
});

describe('the documentation checks, on pages of their own', () => {
  let dir: string;
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'docs-check-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('make anchors as GitHub does: punctuation dropped, spaces to hyphens, repeats numbered, code blocks ignored', () => {
    expect(githubSlug('`GET /api/v1/chat/history/:session_id?limit=50`')).toBe('get-apiv1chathistorysession_idlimit50');
    expect(githubSlug("The conversation's event stream")).toBe('the-conversations-event-stream');
    expect(githubSlug('Migrations: the CLI or `npm run db:migrate`')).toBe('migrations-the-cli-or-npm-run-dbmigrate');
    expect(githubSlug('Threats, and what stands in the way')).toBe('threats-and-what-stands-in-the-way');
    const anchors = anchorsOf('# Title\n\n## Logs\n\n```bash\n# not a heading\n```\n\n## Logs\n\n<a id="kept"></a>\n');
    expect([...anchors].sort()).toEqual(['kept', 'logs', 'logs-1', 'title']);
  });

  it('accept links that resolve, and ignore links inside code and to other sites', () => {
    write('README.md', '# Top\n\nSee [memory](docs/memory.md#the-window), [here](#top), [site](https://example.com/x#y).\n\n`[not](a-link.md)`\n');
    write('docs/memory.md', '# Memory\n\n## The window\n\nBack to [the README](../README.md#top).\n\n```md\n[not](nowhere.md)\n```\n');
    expect(brokenLinks(documentationFiles(dir), dir)).toEqual([]);
  });

  it('fail on a link to a page that is gone and on an anchor no heading makes, naming the file, line, link and fix', () => {
    write('README.md', '# Top\n\nSee [memory](docs/memory.md#the-windw).\nAnd [gone](docs/retired.md).\n');
    write('docs/memory.md', '# Memory\n\n## The window\n\nSee [top](../README.md#bottom).\n');
    const problems = brokenLinks(documentationFiles(dir), dir);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^README\.md:3: the link "docs\/memory\.md#the-windw" points at #the-windw, which no heading of docs\/memory\.md makes \(did you mean #the-window\?\)/);
    expect(problems[1]).toMatch(/^README\.md:4: the link "docs\/retired\.md" points at docs\/retired\.md, which does not exist\. Link to the file where the content lives now/);
    expect(problems[2]).toMatch(/^docs\/memory\.md:5: the link "\.\.\/README\.md#bottom" points at #bottom, which no heading of README\.md makes/);
  });

  it('fail on a path in backticks that is not in the repository, but not on patterns or code blocks', () => {
    write('src/kept.ts', '');
    write('README.md', '# Top\n\n`src/kept.ts`, `src/agent-specs/<key>/spec.ts`, `tests/*.test.ts` and `src/gone.ts:12`.\n\n```\n`src/also-gone.ts`\n```\n');
    expect(missingPaths(documentationFiles(dir), dir)).toEqual([
      'README.md:3: `src/gone.ts:12` names a path that does not exist: write where it lives now (from the repository root), or drop it.',
    ]);
  });

  const schema = z.object({
    PORT: z.coerce.number().default(3000),
    NEW_SETTING: z.coerce.number().int().default(42),
    OPTIONAL_KEY: z.string().optional(),
    ALLOWED: z.string().default(''),
  });
  const table = (rows: string) => `# Configuration\n\n| variable | default | |\n| --- | --- | --- |\n${rows}`;

  it('accept a table with every setting and its default', () => {
    const doc = table(
      '| `PORT` | `3000` | the port |\n| `NEW_SETTING` | `42` | new |\n| `OPTIONAL_KEY` | unset | a key |\n| `ALLOWED` | empty | origins |\n',
    );
    expect(configurationDrift(schema.shape, doc)).toEqual([]);
  });

  it('fail on a setting added to the config without a row, and say the row to add', () => {
    const doc = table('| `PORT` | `3000` | the port |\n| `OPTIONAL_KEY` | unset | a key |\n| `ALLOWED` | empty | origins |\n');
    expect(configurationDrift(schema.shape, doc)).toEqual([
      'NEW_SETTING is read by src/config.ts but not documented: add a row "| `NEW_SETTING` | `42` | what it does, its unit and allowed values |" ' +
        'to the settings table of docs/configuration.md.',
    ]);
  });

  it('fail on a documented setting the config does not read, and on a default that differs', () => {
    const doc = table(
      '| `PORT` | `8080` | the port |\n| `NEW_SETTING` | `42` | new |\n| `OPTIONAL_KEY`, `RETIRED_KEY` | unset | keys |\n| `ALLOWED` | empty | origins |\n',
    );
    const problems = configurationDrift(schema.shape, doc);
    expect(problems).toEqual([
      'docs/configuration.md:5: PORT\'s default is `3000` in src/config.ts, but the table says "`8080`": write `3000` in its default cell (or change the default in the schema).',
      'docs/configuration.md:7: RETIRED_KEY is documented but src/config.ts does not read it: remove it from the table, or add it to environmentSchema in src/config.ts.',
    ]);
  });
});

describe('the table of words, on pages of its own', () => {
  const page = (table: string) => `# Your shop\n\nThe words:\n\n${table}\n\nMore text.\n`;

  it('accepts the table the code writes, and rewrites only what is between its markers', () => {
    expect(wordsTableDrift(page(wordsTable()))).toEqual([]);
    const stale = page(wordsTable().replace('| `widget.labels.send` | Send |', '| `widget.labels.send` | Submit |'));
    expect(wordsTableDrift(stale)).toEqual([expect.stringContaining('run `npm run docs:words`')]);
    expect(withWordsTable(stale)).toBe(page(wordsTable()));
  });

  it('fails on a page without the table, and on a table missing a label', () => {
    expect(wordsTableDrift('# Your shop\n')).toEqual([expect.stringContaining('the table of words is missing')]);
    expect(wordsTableDrift(page(wordsTable().replace(/\| `widget\.labels\.typing` \|.*\n/, '')))).toHaveLength(1);
  });
});
