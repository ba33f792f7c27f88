import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineScripts, VARIABLE_KEY_SCRIPTS, type RedisClient } from '../../src/platform/redis';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** A client that only records what is defined on it. */
function recorder() {
  const defined: string[] = [];
  return { client: { defineCommand: (name: string) => defined.push(name) } as unknown as RedisClient, defined };
}

it('defineScripts refuses a script whose key count is per call unless it is kept out of auto-pipelining, and a listed one with a fixed count', () => {
  const { client, defined } = recorder();
  expect(() => defineScripts<{ notListed(): Promise<void> }>(client, { notListed: { lua: 'return 1' } })).toThrow(/VARIABLE_KEY_SCRIPTS/);
  expect(() => defineScripts<{ rdmSweep(): Promise<void> }>(client, { rdmSweep: { keys: 1, lua: 'return 1' } })).toThrow(/VARIABLE_KEY_SCRIPTS/);
  defineScripts<{ rdmSweep(): Promise<void>; fixed(): Promise<void> }>(client, { rdmSweep: { lua: 'return 1' }, fixed: { keys: 1, lua: 'return 1' } });
  expect(defined).toEqual(['rdmSweep', 'fixed']);
});

it('every script listed as taking its key count per call is one the stores define that way', () => {
  const perCall = sources('src').flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/(\w+): \{ lua: /g)].map((m) => m[1]));
  expect(perCall.sort()).toEqual([...VARIABLE_KEY_SCRIPTS].sort());
});
