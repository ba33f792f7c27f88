import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The documents a reader follows: README.md and every page under docs/. */
function pages(dir = 'docs'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? pages(p) : p.endsWith('.md') ? [p] : [];
  });
}
const DOCS = ['README.md', ...pages()];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  let fence = false;
  const anchors = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const m = !fence && /^#{1,6} (.+)$/.exec(line);
    if (m) anchors.add(slug(m[1]));
  }
  return anchors;
}

/** Markdown links outside code: `[text](target)`, targets that are neither web addresses nor mail. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^(https?:|mailto:)/.test(t));
}

describe('the documents', () => {
  it('the README is short: what it is, the two commands, one walkthrough and a map of the guides', () => {
    const lines = readFileSync('README.md', 'utf8').split('\n').length;
    expect(lines).toBeLessThan(300);
    const readme = readFileSync('README.md', 'utf8');
    for (const guide of ['docs/till-developer.md', 'docs/operator/README.md', 'docs/store-manager.md']) expect(readme).toContain(`](${guide})`);
  });

  it('every relative link points at a file that exists, and every #anchor at a heading of it', () => {
    const broken: string[] = [];
    for (const file of DOCS)
      for (const target of linksOf(file)) {
        const [where, anchor] = target.split('#');
        const resolved = where ? path.normalize(path.join(path.dirname(file), where)) : file;
        if (!existsSync(resolved)) broken.push(`${file}: ${target} (no ${resolved})`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    expect(broken).toEqual([]);
  });

  it('every page of the operator guide is linked from its index', () => {
    const index = readFileSync('docs/operator/README.md', 'utf8');
    const unlinked = pages('docs/operator')
      .map((p) => path.basename(p))
      .filter((name) => name !== 'README.md' && !index.includes(`](${name})`));
    expect(unlinked).toEqual([]);
  });
});
