import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { VARIABLE_KEY_SCRIPTS } from '../../src/platform/redis';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

it('every Lua command defined without numberOfKeys is kept out of auto-pipelining, and only those', () => {
  const defined = sources('src').flatMap((f) =>
    [...readFileSync(f, 'utf8').matchAll(/defineCommand\('(\w+)',\s*\{([^}]*)\}/g)].map((m) => ({ name: m[1], fixed: /numberOfKeys/.test(m[2]) })),
  );
  expect(defined.length).toBeGreaterThan(10);
  expect(
    defined
      .filter((d) => !d.fixed)
      .map((d) => d.name)
      .sort(),
  ).toEqual([...VARIABLE_KEY_SCRIPTS].sort());
});
