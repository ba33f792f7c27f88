import { existsSync, readFileSync } from 'node:fs';
import { OPERATIONS } from '../../src/contract';

/** Claims in README.md that a reader acts on; each is checked here, so a stale one fails. */
const readme = readFileSync('README.md', 'utf8');

it('every test file the README names as evidence exists', () => {
  const named = [...new Set([...readme.matchAll(/`(test\/[\w./-]+\.test\.ts)`/g)].map((m) => m[1]))];
  expect(named.length).toBeGreaterThan(10);
  expect(named.filter((f) => !existsSync(f))).toEqual([]);
});

it('the fault-rule operation ids it lists are exactly the operations the sandbox serves', () => {
  const para = readme.slice(readme.indexOf('Operation ids for fault rules'), readme.indexOf('## The sandbox and the published reference'));
  const listed = [...para.matchAll(/`(\w+|\*)`/g)].map((m) => m[1]).filter((id) => id !== 'OPERATIONS');
  expect(new Set(listed)).toEqual(new Set([...Object.keys(OPERATIONS), '*']));
});

it('every setting in its Configuration table is documented in .env.example', () => {
  const section = readme.slice(readme.indexOf('\n## Configuration'), readme.indexOf('\n## Operating it'));
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  const settings = rows.flatMap((r) => [...r.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
  expect(settings.length).toBeGreaterThan(10);
  const example = readFileSync('.env.example', 'utf8');
  expect(settings.filter((s) => !new RegExp(`^#?\\s*${s}=`, 'm').test(example))).toEqual([]);
});
