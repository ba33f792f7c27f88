import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The Node the product requires, checked by the entry point before anything
 * else loads: the rest of the program may use what only that Node has, and on
 * an older one it would fail somewhere later, or worse, not at all. So this
 * file stays plain (Node's own modules, syntax any Node since 16 reads).
 */

/** `engines.node` of the package.json beside src/ (or dist/), or undefined when it cannot be read. */
export function requiredNodeRange(packageJson = path.join(__dirname, '..', '..', 'package.json')): string | undefined {
  try {
    const engines = (JSON.parse(readFileSync(packageJson, 'utf8')) as { engines?: { node?: unknown } }).engines;
    return typeof engines?.node === 'string' ? engines.node : undefined;
  } catch {
    return undefined;
  }
}

const parts = (version: string) => version.split('.').map((p) => Number.parseInt(p, 10) || 0);

/**
 * What is wrong with running on `version` given `range` (`>=24`, `>=24.1.0`),
 * in words an operator can act on; undefined when it is fine. Another form of
 * range is not ours to judge: package.json has `>=`.
 */
export function nodeVersionProblem(range: string | undefined, version: string): string | undefined {
  const min = /^\s*>=\s*v?(\d+(?:\.\d+){0,2})\s*$/.exec(range ?? '');
  if (!min) return undefined;
  const want = parts(min[1]);
  const have = parts(version.replace(/^v/, ''));
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > (want[i] ?? 0)) return undefined;
    if ((have[i] ?? 0) < (want[i] ?? 0)) {
      return (
        `Node ${min[1]} or newer is required (package.json engines.node "${range}"); this is Node ${version.replace(/^v/, '')} (${process.execPath}). ` +
        `Run it with Node ${want[0]}: the image has it; in a checkout, npm scripts use the one \`npm install\` brings (node_modules/.bin/node).`
      );
    }
  }
  return undefined;
}
