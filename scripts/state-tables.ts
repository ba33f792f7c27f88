/**
 * Writes docs/STATES.md from the money path's transition tables
 * (src/pos/money/machines.ts); `--check` fails when the committed file differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { machinesAsMarkdown } from '../src/pos/money/machines';

const FILE = 'docs/STATES.md';
const text = machinesAsMarkdown();
if (process.argv.includes('--check')) {
  if (readFileSync(FILE, 'utf8') !== text) {
    console.error(`${FILE} is not what src/pos/money/machines.ts makes: run npm run docs:states`);
    process.exit(1);
  }
} else {
  writeFileSync(FILE, text);
  console.log(`Wrote ${FILE}`);
}
