/**
 * Builds the pages in web/ into public/: the widget and the review console as
 * minified browser bundles (no framework), their stylesheets, and the two HTML
 * pages. `npm run build` runs it (and `npm start` runs that first); jest's global
 * setup runs it before the browser tests.
 *
 *   npm run build
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const REPO_ROOT = path.resolve(__dirname, '..');
export const WEB_DIR = path.join(REPO_ROOT, 'web');
export const PUBLIC_DIR = path.join(REPO_ROOT, 'public');

/** Browsers from early 2021 on: fetch streams, shadow DOM, optional chaining. */
const BROWSER_TARGETS = ['chrome89', 'firefox89', 'safari15', 'edge89'];
const PAGES = ['index.html', 'review.html'];
const STYLESHEETS = ['review.css', 'shop.css'];

export interface BuiltFile {
  file: string;
  bytes: number;
  gzipBytes: number;
}

/** Builds everything into outDir (emptied first, so no stale file is served); returns each file's size. */
export async function buildWeb(outDir: string = PUBLIC_DIR): Promise<BuiltFile[]> {
  await fs.rm(outDir, { recursive: true, force: true });
  await fs.mkdir(outDir, { recursive: true });

  // The widget's CSS lives inside its shadow root, so it is inlined into widget.js.
  const widgetCss = await esbuild.build({
    entryPoints: [path.join(WEB_DIR, 'widget.css')],
    bundle: true,
    minify: true,
    write: false,
    target: BROWSER_TARGETS,
    logLevel: 'warning',
  });

  await esbuild.build({
    entryPoints: ['widget.ts', 'review.ts'].map((file) => path.join(WEB_DIR, file)),
    outdir: outDir,
    bundle: true,
    minify: true,
    format: 'iife',
    target: BROWSER_TARGETS,
    legalComments: 'none',
    define: { WIDGET_CSS: JSON.stringify(widgetCss.outputFiles[0]!.text) },
    logLevel: 'warning',
  });

  await esbuild.build({
    entryPoints: STYLESHEETS.map((file) => path.join(WEB_DIR, file)),
    outdir: outDir,
    bundle: true,
    minify: true,
    target: BROWSER_TARGETS,
    logLevel: 'warning',
  });

  for (const page of PAGES) await fs.copyFile(path.join(WEB_DIR, page), path.join(outDir, page));

  const files = (await fs.readdir(outDir)).sort();
  return Promise.all(
    files.map(async (file) => {
      const content = await fs.readFile(path.join(outDir, file));
      return { file, bytes: content.length, gzipBytes: gzipSync(content).length };
    }),
  );
}

async function main(): Promise<void> {
  const files = await buildWeb();
  console.log(`Built ${path.relative(process.cwd(), PUBLIC_DIR) || PUBLIC_DIR}/`);
  console.log('| file | bytes | gzip |\n| --- | ---: | ---: |');
  for (const f of files) console.log(`| ${f.file} | ${f.bytes} | ${f.gzipBytes} |`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    // esbuild has already printed the errors with file and line
    console.error('Build failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
