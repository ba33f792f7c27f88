import { existsSync, readFileSync } from 'node:fs';
import { OPERATIONS } from '../../src/contract';
import { allDocs } from '../support/docs';

/** Claims in the documents that a reader acts on; each is checked here, so a stale one fails. */
const till = readFileSync('docs/till-developer.md', 'utf8');

it('every test file the documents name as evidence exists', () => {
  const named = [...new Set([...allDocs().matchAll(/`(test\/[\w./-]+\.test\.ts)`/g)].map((m) => m[1]))];
  expect(named.length).toBeGreaterThan(10);
  expect(named.filter((f) => !existsSync(f))).toEqual([]);
});

it('the fault-rule operation ids it lists are exactly the operations the sandbox serves', () => {
  const para = till.slice(till.indexOf('Operation ids for fault rules'), till.indexOf('## The sandbox and the published reference'));
  const listed = [...para.matchAll(/`(\w+|\*)`/g)].map((m) => m[1]).filter((id) => id !== 'OPERATIONS');
  expect(new Set(listed)).toEqual(new Set([...Object.keys(OPERATIONS), '*']));
});

it('every setting in its Configuration table is documented in .env.example', () => {
  const section = readFileSync('docs/operator/configuration.md', 'utf8');
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  const settings = rows.flatMap((r) => [...r.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
  expect(settings.length).toBeGreaterThan(10);
  const example = readFileSync('.env.example', 'utf8');
  expect(settings.filter((s) => !new RegExp(`^#?\\s*${s}=`, 'm').test(example))).toEqual([]);
});

it('the Guarantees table covers every money action in every window, each cell naming a test that exists', () => {
  const section = till.slice(till.indexOf('### Guarantees'), till.indexOf('### Store scoping'));
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Action') && !l.startsWith('|---'));
  const actions = rows.map((r) => r.split('|')[1].trim());
  const MONEY_ACTIONS = [
    'Payment with a redemption',
    'Payment with a coupon lock',
    'Plain sale',
    'Refund',
    'Sale void',
    'Void of a redemption',
    'Coupon release',
    'OTP step',
  ];
  for (const row of rows.filter((r) => MONEY_ACTIONS.some((a) => r.startsWith(`| ${a}`)))) {
    const cells = row.split('|').slice(2, 5);
    expect(cells).toHaveLength(3);
    // Each window's cell says what the till sees; every test it names exists and has a title with those words.
    for (const cell of cells) {
      expect(cell).toMatch(/`test\//);
      for (const m of cell.matchAll(/`(test\/[\w./-]+\.test\.ts)`((?: "[^"]+";?)*)/g)) {
        const source = readFileSync(m[1], 'utf8');
        for (const [, words] of m[2].matchAll(/"([^"]+)"/g)) expect([m[1], words, source.includes(words)]).toEqual([m[1], words, true]);
      }
      // No title words left unchecked (the pattern above reads only plain quoted words).
      expect(cell.replace(/`test\/[\w./-]+\.test\.ts`(?: "[^"]+";?)*/g, '')).not.toMatch(/`test\/[^`]+`\s*"/);
    }
  }
  for (const a of MONEY_ACTIONS) expect([a, actions.some((x) => x.startsWith(a))]).toEqual([a, true]);
});
