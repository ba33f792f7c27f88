/**
 * Writes `.env.example` and the README's settings table from the features'
 * settings (src/platform/settings).
 * Run: npm run settings:docs              (write)
 *      npm run settings:docs -- --check   (exit 1 when a committed file is out of date)
 * test/docs/settings.test.ts fails when the committed files differ from these.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { envExample, withReadmeTable } from '../src/platform/settings/docs';

const ROOT = path.resolve(__dirname, '..');

/** Each file, by path relative to the repository root, with the content the settings make. */
export function generateSettingsDocs(): Record<string, string> {
  return {
    '.env.example': envExample(),
    'docs/operator/configuration.md': withReadmeTable(readFileSync(path.join(ROOT, 'docs/operator/configuration.md'), 'utf8')),
  };
}

if (require.main === module) {
  const docs = Object.entries(generateSettingsDocs());
  if (process.argv.includes('--check')) {
    const stale = docs.filter(([file, text]) => readFileSync(path.join(ROOT, file), 'utf8') !== text).map(([file]) => file);
    if (stale.length) {
      console.error(`${stale.join(', ')}: not what src/platform/settings makes; run npm run settings:docs`);
      process.exit(1);
    }
    console.log('.env.example and the README settings table are up to date');
  } else {
    for (const [file, text] of docs) writeFileSync(path.join(ROOT, file), text);
    console.log(`Wrote ${docs.map(([file]) => file).join(', ')}`);
  }
}
