import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeCycles, findImportCycles } from '../../scripts/check-import-cycles';

const repoRoot = path.resolve(__dirname, '../..');

describe('import loops (scripts/check-import-cycles.ts)', () => {
  it('finds none among the files of src/', () => {
    const cycles = findImportCycles(path.join(repoRoot, 'src'));
    // The message names every file of each loop and what each takes from the next.
    expect(cycles.length === 0 ? '' : describeCycles(cycles, repoRoot)).toBe('');
  });

  describe('on a tree of its own', () => {
    let dir: string;
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    };
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'import-cycles-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reports a loop held by a type-only import, naming each file and what it takes', () => {
      write('a.ts', "import type { B } from './b';\nexport interface A { b: B }\n");
      write('b.ts', "import { makeC } from './sub';\nexport type B = ReturnType<typeof makeC>;\n");
      write('sub/index.ts', "export { makeC } from './c';\n");
      write('sub/c.ts', "import { type A } from '../a';\nexport const makeC = (a?: A) => a;\n");
      write('lone.ts', "import { B } from './b';\nimport express from 'express';\nexport const x: B | typeof express = 1 as never;\n");

      const cycles = findImportCycles(dir);
      expect(cycles.map((c) => c.files.map((f) => path.relative(dir, f)))).toEqual([
        ['a.ts', 'b.ts', 'sub/index.ts', 'sub/c.ts', 'a.ts'],
      ]);
      const message = describeCycles(cycles, dir);
      expect(message).toContain('loop 1: a.ts -> b.ts -> sub/index.ts -> sub/c.ts -> a.ts');
      expect(message).toContain('a.ts imports type B from b.ts');
      expect(message).toContain('sub/index.ts imports makeC from sub/c.ts');
      expect(message).toContain('sub/c.ts imports type A from a.ts');
    });

    it('follows dynamic imports, require and .js endings, and reports two separate loops apart', () => {
      write('x.ts', "export async function load() { return import('./y'); }\n");
      write('y.ts', "import { load } from './x.js';\nexport const again = load;\n");
      write('p.ts', "const q = require('./q');\nexport const p = q;\n");
      write('q.ts', "export * from './p';\n");
      const cycles = findImportCycles(dir);
      expect(cycles.map((c) => c.files.map((f) => path.relative(dir, f)))).toEqual([
        ['p.ts', 'q.ts', 'p.ts'],
        ['x.ts', 'y.ts', 'x.ts'],
      ]);
    });

    it('finds nothing when imports only run one way', () => {
      write('top.ts', "import { mid } from './mid';\nexport const top = mid;\n");
      write('mid.ts', "import { leaf } from './leaf';\nexport const mid = leaf;\n");
      write('leaf.ts', 'export const leaf = 1;\n');
      expect(findImportCycles(dir)).toEqual([]);
    });
  });
});
