import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * `Date.parse` reads a date-time without an offset as the server's local time,
 * and the published reference sends such date-times. Every upstream date-time
 * goes through src/upstream/date-time.ts (`upstreamTime`), which reads them as
 * UTC; this scan keeps `Date.parse` out of the rest of the BFF.
 */
const ALLOWED = new Set([
  'src/upstream/date-time.ts', // the one reader, on strings it has already given an offset
  'src/upstream/errors.ts', // Retry-After HTTP-dates, which always say GMT
  'src/pos/terminals/registry.ts', // the terminals file's own times, which its schema requires to carry an offset
]);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

it('no BFF code outside the date-time reader calls Date.parse', () => {
  const offenders = ['src/pos', 'src/upstream', 'src/platform'].flatMap(files).filter((f) => !ALLOWED.has(f) && /Date\.parse\(/.test(readFileSync(f, 'utf8')));
  expect(offenders).toEqual([]);
});
