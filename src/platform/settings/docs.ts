import { defaultOf, settingsIn, type Feature, type Setting } from './define';
import { FEATURES } from './index';

/**
 * `.env.example` and the README's settings table, made from the features'
 * settings (scripts/settings-docs.ts writes them; test/docs/settings.test.ts
 * fails when the committed files differ).
 */

const WIDTH = 110;

const ENV_EXAMPLE_HEADER = [
  'Every setting of the POS BFF and the loyalty sandbox, with its default.',
  "Copy to .env (read at start-up by the BFF and the terminal CLI, with Node's own parser) or export the",
  'variables; a variable set in the environment wins over .env. Empty means "use the default".',
  'A bad value stops start-up with a message naming the variable.',
  'Under Docker Compose the .env beside compose.yaml only fills in the variables compose.yaml lists under',
  '`environment:`; add any other setting there (the image has no .env of its own).',
  'Generated from src/platform/settings by `npm run settings:docs`: change a setting there, not here.',
];

/** The README's table sits between these two lines. */
export const README_TABLE_START = '<!-- settings table -->';
export const README_TABLE_END = '<!-- end of settings table -->';

/** The value an unset variable takes, as it would be written in the environment; '' when it has none. */
function defaultValue(s: Setting): string {
  const value = defaultOf(s.schema);
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(',') : String(value);
}

function defaultInWords(s: Setting): string {
  return s.doc.default ?? (defaultValue(s) || 'unset');
}

/** `# ` comment lines, each of the text's lines filled up to the width; a line's leading spaces carry over. */
function comment(text: string): string[] {
  return text.split('\n').flatMap((line) => {
    const indent = /^ */.exec(line)?.[0] ?? '';
    const out: string[] = [];
    let current = '';
    // Split at single spaces: a run of spaces inside a line (a column of a list) survives.
    for (const word of line.trim().split(' ')) {
      if (current && 2 + indent.length + current.length + 1 + word.length > WIDTH) {
        out.push(current);
        current = word;
      } else {
        current = current ? `${current} ${word}` : word;
      }
    }
    out.push(current);
    return out.map((l) => `# ${indent}${l}`);
  });
}

function featureBlock(f: Feature): string[] {
  const lines = [`# --- ${f.title} ---`, ...(f.notes ?? []).flatMap(comment)];
  for (const s of settingsIn(f.settings)) {
    // A non-breaking space keeps "Default:" on the line of its value.
    const text = comment(`${s.doc.description} Default:\u00a0${defaultInWords(s)}`).map((l) => l.replace('\u00a0', ' '));
    lines.push(...text, `${s.variable}=${defaultValue(s)}`);
  }
  return lines;
}

export function envExample(features: readonly Feature[] = Object.values(FEATURES)): string {
  return [comment(ENV_EXAMPLE_HEADER.join('\n')), ...features.map(featureBlock)].map((block) => block.join('\n')).join('\n\n') + '\n';
}

/** The README's table: the settings that carry a README line, in the features' order. */
export function readmeTable(features: readonly Feature[] = Object.values(FEATURES)): string {
  const rows = features
    .flatMap((f) => settingsIn(f.settings))
    .filter((s) => s.doc.readme)
    .map((s) => `| \`${s.variable}\` | ${s.doc.default ?? (defaultValue(s) ? `\`${defaultValue(s)}\`` : 'unset')} | ${s.doc.readme} |`);
  return [README_TABLE_START, '| Setting | Default | Meaning |', '|---|---|---|', ...rows, README_TABLE_END].join('\n');
}

/** The README with its settings table replaced by `table`. */
export function withReadmeTable(readme: string, table: string = readmeTable()): string {
  const start = readme.indexOf(README_TABLE_START);
  const end = readme.indexOf(README_TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md: the settings table's markers are missing (${README_TABLE_START} ... ${README_TABLE_END})`);
  return readme.slice(0, start) + table + readme.slice(end + README_TABLE_END.length);
}
