import { readFileSync } from 'node:fs';
import { machinesAsMarkdown, MACHINES } from '../../src/pos/money/machines';

it('docs/STATES.md is what the transition tables make (npm run docs:states rewrites it)', () => {
  expect(readFileSync('docs/STATES.md', 'utf8')).toBe(machinesAsMarkdown());
});

it('names every state of every machine, and the claim states as states', () => {
  const doc = readFileSync('docs/STATES.md', 'utf8');
  for (const machine of Object.values(MACHINES)) for (const state of Object.keys(machine)) expect(doc).toContain(`| \`${state}\` |`);
  for (const claim of ['paying', 'voiding', 'releasing', 'recording', 'confirming']) expect(doc).toContain(`\`${claim}\``);
});
