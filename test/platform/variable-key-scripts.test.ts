import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { defineScripts, VARIABLE_KEY_SCRIPTS } from '../../src/platform/redis';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

it('defineScripts refuses a script whose key count is per call unless it is kept out of auto-pipelining, and a listed one with a fixed count', () => {
  // A real client; defining commands sends nothing, so it never connects.
  const client = new Redis({ lazyConnect: true });
  try {
    expect(() => defineScripts<{ notListed(): Promise<void> }>(client, { notListed: { lua: 'return 1' } })).toThrow(/VARIABLE_KEY_SCRIPTS/);
    expect(() => defineScripts<{ rdmSweep(): Promise<void> }>(client, { rdmSweep: { keys: 1, lua: 'return 1' } })).toThrow(/VARIABLE_KEY_SCRIPTS/);
    const defined = defineScripts<{ rdmSweep(): Promise<void>; fixed(): Promise<void> }>(client, {
      rdmSweep: { lua: 'return 1' },
      fixed: { keys: 1, lua: 'return 1' },
    });
    expect([typeof defined.rdmSweep, typeof defined.fixed]).toEqual(['function', 'function']);
    expect('notListed' in client).toBe(false);
  } finally {
    client.disconnect();
  }
});

it('every script listed as taking its key count per call is one the stores define that way', () => {
  const perCall = sources('src').flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/(\w+): \{ lua: /g)].map((m) => m[1]));
  expect(perCall.sort()).toEqual([...VARIABLE_KEY_SCRIPTS].sort());
});
