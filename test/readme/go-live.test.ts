import { existsSync, readFileSync } from 'node:fs';

/** docs/GO-LIVE.md maps checklist items to tests: each file it names exists, and each quoted title is in that file. */
const doc = readFileSync('docs/GO-LIVE.md', 'utf8');
const rows = doc.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Item') && !l.startsWith('|---'));

it('has a row for each of the checklist items it covers', () => {
  expect(rows.length).toBeGreaterThanOrEqual(20);
});

it.each(rows.map((r) => [r.split('|')[1].trim(), r.split('|')[2]]))('%s: the tests it names exist', (_item, evidence) => {
  const cited = [...evidence.matchAll(/`(test\/[\w./-]+\.test\.ts)`((?:\s*"[^"]+")*)/g)];
  expect(cited.length).toBeGreaterThan(0);
  for (const [, file, titles] of cited) {
    expect([file, existsSync(file)]).toEqual([file, true]);
    const source = readFileSync(file, 'utf8');
    for (const [, title] of titles.matchAll(/"([^"]+)"/g)) expect([file, title, source.includes(title)]).toEqual([file, title, true]);
  }
});
