/**
 * npm run check:cycles [DIR]   (DIR defaults to src)
 *
 * Fails when the TypeScript files under DIR import each other in a loop. A loop
 * means no file of it can be read, tested or moved without the others, and at run
 * time one of them sees the other half-initialised.
 *
 * What counts as an import: every relative module specifier ('./x', '../y/z') of
 * a .ts file, in `import … from`, `export … from`, `import x = require()`,
 * `require()` and `import()`. Type-only imports (`import type`, `{ type X }`)
 * count too: they are erased at run time, but they still tie the two modules
 * together (both loops this check was written for were held by types). Package
 * imports ('express') are not followed. A specifier resolves to `x.ts`, then
 * `x/index.ts` (a `.js` ending is read as `.ts`); one that resolves to no file
 * under DIR is left out.
 *
 * tests/unit/import-cycles.test.ts runs it on src/ as part of `npm test`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import of a file: the file it names and the names it takes (`*` for a namespace, `import()` for a dynamic one). */
export interface ImportEdge {
  from: string;
  to: string;
  names: string[];
}

/** A loop: files in import order, the first repeated at the end, and the edges between them. */
export interface ImportCycle {
  files: string[];
  edges: ImportEdge[];
}

/** Every .ts file under dir (declaration files aside), absolute paths, sorted. */
export function typeScriptFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') found.push(...typeScriptFiles(full));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      found.push(full);
    }
  }
  return found.sort();
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The .ts file a relative specifier names, or null (a package, or nothing there). */
export function resolveRelative(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier.replace(/\.js$/, ''));
  for (const candidate of [base.endsWith('.ts') ? base : null, `${base}.ts`, path.join(base, 'index.ts')]) {
    if (candidate && isFile(candidate)) return candidate;
  }
  return null;
}

/** The relative imports of one file's text, with the names each takes. */
export function importsOf(file: string, text: string): { specifier: string; names: string[] }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: { specifier: string; names: string[] }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = clause?.isTypeOnly ? 'type ' : '';
      const names: string[] = [];
      if (clause?.name) names.push(`${typeOnly}${clause.name.text}`);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push(`${typeOnly}* as ${bindings.name.text}`);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const e of bindings.elements) names.push(`${typeOnly || (e.isTypeOnly ? 'type ' : '')}${(e.propertyName ?? e.name).text}`);
      }
      found.push({ specifier: node.moduleSpecifier.text, names });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.isTypeOnly ? 'type ' : '';
      const clause = node.exportClause;
      const names =
        clause && ts.isNamedExports(clause)
          ? clause.elements.map((e) => `${typeOnly || (e.isTypeOnly ? 'type ' : '')}${(e.propertyName ?? e.name).text}`)
          : [`${typeOnly}*`];
      found.push({ specifier: node.moduleSpecifier.text, names });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push({ specifier: node.moduleReference.expression.text, names: [node.name.text] });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0]!)
    ) {
      found.push({ specifier: (node.arguments[0] as ts.StringLiteralLike).text, names: ['import()'] });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, names: [`type import()`] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The import graph of the files under dir: file → the files under dir it imports, with the names. */
export function importGraph(dir: string): Map<string, ImportEdge[]> {
  const root = path.resolve(dir);
  const files = typeScriptFiles(root);
  const inside = new Set(files);
  const graph = new Map<string, ImportEdge[]>();
  for (const file of files) {
    const edges = new Map<string, ImportEdge>();
    for (const { specifier, names } of importsOf(file, readFileSync(file, 'utf8'))) {
      const to = resolveRelative(file, specifier);
      if (!to || !inside.has(to)) continue;
      const edge = edges.get(to) ?? { from: file, to, names: [] };
      edge.names.push(...names);
      edges.set(to, edge);
    }
    graph.set(file, [...edges.values()]);
  }
  return graph;
}

/**
 * Every loop, one per strongly connected group of files (Tarjan's algorithm),
 * shown as the shortest loop through the group's first file, so that a report
 * names a path one can follow in the code. Deterministic: files are visited sorted.
 */
export function findImportCycles(dir: string): ImportCycle[] {
  const graph = importGraph(dir);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;

  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== file);
      const selfImport = (graph.get(file) ?? []).some((e) => e.to === file);
      if (group.length > 1 || selfImport) groups.push(group.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);

  return groups
    .sort((a, b) => a[0]!.localeCompare(b[0]!))
    .map((group) => shortestLoop(graph, group[0]!, new Set(group)));
}

/** The shortest loop from start back to start within one group (breadth first). */
function shortestLoop(graph: Map<string, ImportEdge[]>, start: string, group: Set<string>): ImportCycle {
  const cameBy = new Map<string, ImportEdge>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const edge of graph.get(file) ?? []) {
      if (!group.has(edge.to)) continue;
      if (edge.to === start) {
        const edges = [edge];
        for (let at = file; at !== start; at = cameBy.get(at)!.from) edges.unshift(cameBy.get(at)!);
        return { files: [...edges.map((e) => e.from), start], edges };
      }
      if (!cameBy.has(edge.to)) {
        cameBy.set(edge.to, edge);
        queue.push(edge.to);
      }
    }
  }
  throw new Error(`No loop through ${start}, though Tarjan grouped it: a bug of this script.`);
}

/** What to print for the loops found: each loop edge by edge with the names it takes, and how to break it. */
export function describeCycles(cycles: ImportCycle[], root: string): string {
  const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const lines = [`${cycles.length} import loop(s) among the TypeScript files:`];
  cycles.forEach((cycle, i) => {
    lines.push('', `loop ${i + 1}: ${cycle.files.map(rel).join(' -> ')}`);
    for (const edge of cycle.edges) lines.push(`  ${rel(edge.from)} imports ${edge.names.join(', ') || '(the module itself)'} from ${rel(edge.to)}`);
  });
  lines.push(
    '',
    'Break each loop by moving what one of these imports takes to a module that the others can import without ' +
      'importing back: a shared type to the module that owns the thing it describes, a small helper to a module of its own ' +
      '(as src/knowledge/words.ts, src/models/token-usage.ts and src/observability/request-context.ts were made). ' +
      'Type-only imports count as well: they tie the modules together just the same.',
  );
  return lines.join('\n');
}

if (require.main === module) {
  const dir = process.argv[2] ?? 'src';
  const cycles = findImportCycles(dir);
  if (cycles.length > 0) {
    console.error(describeCycles(cycles, process.cwd()));
    process.exit(1);
  }
  console.log(`No import loops among the ${importGraph(dir).size} TypeScript files under ${dir}.`);
}
