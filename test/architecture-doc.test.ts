// docs/architecture.md stays true to the tree: every repository path it cites (in `code spans`, in
// its mermaid diagrams, and relative links) exists, every module core/modules.ts loads is described
// there, and the README links to it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = path.join(ROOT, 'docs', 'architecture.md');
const doc = fs.readFileSync(DOC, 'utf8');

/** A repository path: segments of plain characters joined by `/` (no placeholders, globs or spaces). */
const PATH = /^(?:[A-Za-z0-9_.-]+\/)+[A-Za-z0-9_.-]*$/;
/** A path-like word inside a diagram (ends in a known extension, or is a folder with a slash). */
const DIAGRAM_PATH = /(?<![\w/.<*-])(?:[A-Za-z0-9_.-]+\/)+(?:[A-Za-z0-9_-]+\.(?:ts|tsx|mjs|md|json))?(?![\w/*<])/g;

/** Paths cited by the document: code spans outside fences, path-like words in fenced diagrams. */
function citedPaths(markdown: string): string[] {
  const found = new Set<string>();
  const parts = markdown.split(/^```.*$/m);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      // Inside a fence (the diagrams).
      for (const m of part.matchAll(DIAGRAM_PATH)) found.add(m[0]);
      return;
    }
    for (const m of part.matchAll(/`([^`\n]+)`/g)) if (PATH.test(m[1]!)) found.add(m[1]!);
  });
  return [...found];
}

/** Relative Markdown links ([text](target)), resolved from the document's folder. */
function linkedFiles(markdown: string, from: string): string[] {
  return [...markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/i.test(t))
    .map((t) => path.relative(ROOT, path.resolve(path.dirname(from), t)));
}

describe('docs/architecture.md', () => {
  it('finds the paths a document cites, and nothing that is not a path', () => {
    const sample = [
      'See `core/server.ts` and `core/store/sqlite/`, not `/token/{id}`, `plugins/<type>/`, `@agendajs/mongo-backend` or `a | b`.',
      '```mermaid',
      'flowchart TB',
      '  s["core/capture/: capture URLs"] --> p["plugins/*: actions"]',
      '```',
    ].join('\n');
    expect(citedPaths(sample).sort()).toEqual(['core/capture/', 'core/server.ts', 'core/store/sqlite/']);
  });

  it('cites only paths that exist in the repository', () => {
    const cited = citedPaths(doc);
    // The document is about the code: it names many of its files.
    expect(cited.length).toBeGreaterThan(60);
    const missing = cited.filter((p) => !fs.existsSync(path.join(ROOT, p)));
    expect(missing, 'paths cited in docs/architecture.md that do not exist').toEqual([]);
  });

  it('links only to files that exist', () => {
    const links = linkedFiles(doc, DOC);
    expect(links).toContain(path.join('docs', 'plugins.md'));
    expect(links.filter((p) => !fs.existsSync(path.join(ROOT, p)))).toEqual([]);
  });

  it('describes every module core/modules.ts loads', () => {
    const source = fs.readFileSync(path.join(ROOT, 'core', 'modules.ts'), 'utf8');
    // The modules are loaded with `await import('./<folder>/<file>.js')`.
    const loaded = [...source.matchAll(/import\('\.\/([^']+)\.js'\)/g)].map((m) => `core/${m[1]}.ts`);
    expect(loaded.length).toBeGreaterThan(0);
    expect(
      loaded.filter((file) => !doc.includes(`\`${file}\``)),
      'modules missing from docs/architecture.md',
    ).toEqual([]);
  });

  it('is linked from the README', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(linkedFiles(readme, path.join(ROOT, 'README.md'))).toContain(path.join('docs', 'architecture.md'));
  });
});
