import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { parse } from 'yaml';
import { addStore, addTerminal } from '../../src/pos/terminals';
import { exited, waitForOutput } from '../store/readme-blocks';
import { logLines, startProgram } from '../store/program';
import { RedisServer } from './redis-server';

/**
 * Production start-up asks Redis whether it persists and will not evict keys,
 * by CONFIG GET or, where CONFIG is hidden, by INFO; it refuses (exit 2, naming
 * the setting) or warns per REDIS_DURABILITY_CHECK. Real redis-servers, the real program.
 */
const LIVE = { LOYALTY_BASE_URL: 'https://loyalty.example.com', LOYALTY_API_KEY: 'live_key_9f2', LOYALTY_SECRET_KEY: 'live_secret_do_not_print_41d' };
const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-durability-'));
const servers: RedisServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function terminals(): string {
  const file = path.join(dir, `t-${Math.random()}.json`);
  addStore(file, { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Retail' }, branch: { uniqueId: 'b-1', name: 'Main' } });
  addTerminal(file, { storeId: 'store-001', role: 'cashier' });
  return file;
}

async function redis(persist: boolean, ...args: string[]): Promise<RedisServer> {
  const s = await RedisServer.start({ persist, args });
  servers.push(s);
  return s;
}

const HIDE_CONFIG = ['--rename-command', 'CONFIG', '""'];
const EVICTING = ['--maxmemory-policy', 'allkeys-lru'];
const env = (server: RedisServer, more: Record<string, string> = {}) => ({ ...LIVE, REDIS_URL: server.url, TERMINALS_FILE: terminals(), ...more });
const production = (server: RedisServer, more: Record<string, string> = {}) => env(server, { NODE_ENV: 'production', ...more });

async function refused(e: Record<string, string>): Promise<string> {
  const { code, output } = await exited(startProgram(e, ['--bff-only']), 30_000);
  expect(output).not.toContain('POS BFF listening');
  expect(code).toBe(2);
  return output;
}

async function started(e: Record<string, string>): Promise<ReturnType<typeof logLines>> {
  const child = startProgram(e, ['--bff-only']);
  try {
    return logLines(await waitForOutput(child, /POS BFF listening.*\n/, 30_000));
  } finally {
    child.kill('SIGKILL');
  }
}

describe('production start-up and what Redis keeps', () => {
  it('refuses a Redis without persistence (CONFIG GET appendonly, save), naming the setting', async () => {
    const output = await refused(production(await redis(false)));
    expect(output).toMatch(/REDIS_DURABILITY_CHECK: Redis at REDIS_URL does not persist \(appendonly no, no save points\).*set appendonly yes/);
    expect(output).not.toMatch(/may evict/);
  }, 40_000);

  it('refuses a Redis that may evict keys (CONFIG GET maxmemory-policy)', async () => {
    const output = await refused(production(await redis(true, ...EVICTING)));
    expect(output).toMatch(/REDIS_DURABILITY_CHECK: Redis at REDIS_URL may evict keys \(maxmemory-policy allkeys-lru\); set maxmemory-policy noeviction/);
    expect(output).not.toMatch(/does not persist/);
  }, 40_000);

  it('where CONFIG is hidden, reads INFO persistence and INFO memory instead', async () => {
    const output = await refused(production(await redis(false, ...HIDE_CONFIG, ...EVICTING)));
    expect(output).toMatch(/hides CONFIG and INFO persistence shows AOF off \(aof_enabled:0\)/);
    expect(output).toMatch(/may evict keys \(INFO memory maxmemory_policy:allkeys-lru\)/);
  }, 40_000);

  it('refuses a Redis that will not say (an ACL user without CONFIG and INFO): not known to keep its keys', async () => {
    const server = await redis(false, ...EVICTING);
    const admin = new Redis(server.url);
    try {
      await admin.call('ACL', 'SETUSER', 'bff', 'on', '>bff-pass', '~*', '&*', '+@all', '-@dangerous');
    } finally {
      admin.disconnect();
    }
    const output = await refused(production(server, { REDIS_URL: `redis://bff:bff-pass@127.0.0.1:${server.port}` }));
    expect(output).toMatch(/REDIS_DURABILITY_CHECK: Redis at REDIS_URL would not say whether it persists and keeps its keys/);
    expect(output).not.toContain('bff-pass');
  });

  it('starts on a Redis with AOF or RDB save points and noeviction, CONFIG hidden or not, with no durability warning', async () => {
    for (const server of [await redis(true), await redis(false, '--save', '3600 1'), await redis(true, ...HIDE_CONFIG)]) {
      const lines = await started(production(server));
      expect(lines.filter((l) => l.setting === 'REDIS_DURABILITY_CHECK')).toEqual([]);
    }
  }, 60_000);

  it("passes on compose.yaml's own Redis (its redis-server arguments, run here)", async () => {
    const command = (parse(readFileSync('compose.yaml', 'utf8')) as { services: { redis: { command: string[] } } }).services.redis.command;
    expect(command[0]).toBe('redis-server');
    // Said explicitly (noeviction is also Redis's default), as the README says it runs.
    expect(command.join(' ')).toContain('--appendonly yes --maxmemory-policy noeviction');
    // Without persistence of our own (`false`): compose's arguments, after ours, must turn it on themselves.
    const lines = await started(production(await redis(false, ...command.slice(1))));
    expect(lines.filter((l) => l.setting === 'REDIS_DURABILITY_CHECK')).toEqual([]);
  }, 40_000);

  it('REDIS_DURABILITY_CHECK=warn (the default outside production) runs and warns of each problem', async () => {
    const server = await redis(false, ...EVICTING);
    for (const e of [production(server, { REDIS_DURABILITY_CHECK: 'warn' }), env(server, { NODE_ENV: 'development' })]) {
      const warned = (await started(e)).filter((l) => l.setting === 'REDIS_DURABILITY_CHECK');
      expect(warned.map((l) => l.level)).toEqual([40, 40]);
      expect(warned.map((l) => l.msg).join('\n')).toMatch(/does not persist[^]*may evict keys/);
    }
    const off = await started(production(server, { REDIS_DURABILITY_CHECK: 'off' }));
    expect(off.filter((l) => l.setting === 'REDIS_DURABILITY_CHECK')).toEqual([]);
  }, 90_000);
});
