import { existsSync, readFileSync } from 'node:fs';
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

/** Where `npm ci` puts the Node of the `node` package (a runtime dependency), which bin/pos-loyalty-bff runs. */
export const broughtNode = path.join(__dirname, '..', '..', 'node_modules', 'node', 'bin', 'node');

const parts = (version: string) => version.split('.').map((p) => Number.parseInt(p, 10) || 0);

/**
 * What is wrong with running on `version` given `range` (`>=24`, `>=24.1.0`),
 * in words an operator can act on; undefined when it is fine. Another form of
 * range is not ours to judge: package.json has `>=`.
 */
export function nodeVersionProblem(range: string | undefined, version: string, brought = existsSync(broughtNode)): string | undefined {
  const min = /^\s*>=\s*v?(\d+(?:\.\d+){0,2})\s*$/.exec(range ?? '');
  if (!min) return undefined;
  const want = parts(min[1]);
  const have = parts(version.replace(/^v/, ''));
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > (want[i] ?? 0)) return undefined;
    if ((have[i] ?? 0) < (want[i] ?? 0)) {
      return (
        `Node ${min[1]} or newer is required (package.json engines.node "${range}"); this is Node ${version.replace(/^v/, '')} (${process.execPath}). ` +
        `Run it with bin/pos-loyalty-bff: it runs the Node ${want[0]} that \`npm ci\` brings (node_modules/node/bin/node, ` +
        `a runtime dependency that \`npm prune --omit=dev\` keeps), whatever node the PATH finds; the image has Node ${want[0]} itself.` +
        // Installed with --ignore-scripts, or the fetch failed: the launcher fell back to the PATH's node.
        (brought ? '' : ' This install has none: run `npm ci` again without --ignore-scripts (the package fetches it as it installs).')
      );
    }
  }
  return undefined;
}
