import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

function pages(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(path.join(ROOT, p)).isDirectory() ? pages(p) : p.endsWith('.md') ? [p] : [];
  });
}

/** README.md and every page under docs/, relative to the repository. */
export const DOC_FILES: readonly string[] = ['README.md', ...pages('docs')];

/**
 * The one document with a heading line starting with `heading` (so a section can move between pages
 * and its tests still run it); fails when none or more than one has it.
 */
export function docWithHeading(heading: string): { file: string; text: string } {
  const found = DOC_FILES.map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') })).filter((d) =>
    d.text.split('\n').some((l) => l.startsWith(heading)),
  );
  if (found.length !== 1) throw new Error(`${found.length} documents have a heading "${heading}": ${found.map((d) => d.file).join(', ') || 'none'}`);
  return found[0];
}

/** Every document's text, for claims that may sit on any page. */
export const allDocs = () => DOC_FILES.map((f) => readFileSync(path.join(ROOT, f), 'utf8')).join('\n');
