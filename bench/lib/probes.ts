import Redis from 'ioredis';
import type { Probe } from './load';

function commandCalls(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1], Number(m[2]));
  return calls;
}

/**
 * Redis commands per 2xx response during a run, from INFO commandstats:
 * `redisScriptsPerRequest` (EVALSHA/EVAL: one round trip each) and
 * `redisCommandsPerRequest` (every command, those run inside scripts included).
 * Background work (sweeper, outbox worker) is counted too; it is small.
 */
export function redisCommandsProbe(url: string): Probe & { close(): Promise<void>; lastBreakdown: Record<string, number> } {
  const redis = new Redis(url, { lazyConnect: false });
  let before = new Map<string, number>();
  const probe = {
    lastBreakdown: {} as Record<string, number>,
    async reset() {
      before = commandCalls(await redis.info('commandstats'));
    },
    async read(ok: number) {
      const after = commandCalls(await redis.info('commandstats'));
      const per: Record<string, number> = {};
      let all = 0;
      let scripts = 0;
      for (const [cmd, n] of after) {
        if (cmd === 'info') continue;
        const d = n - (before.get(cmd) ?? 0);
        if (d <= 0) continue;
        per[cmd] = Math.round((d / ok) * 100) / 100;
        all += d;
        if (cmd === 'evalsha' || cmd === 'eval') scripts += d;
      }
      probe.lastBreakdown = per;
      return { redisCommandsPerRequest: ok ? all / ok : NaN, redisScriptsPerRequest: ok ? scripts / ok : NaN };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  return probe;
}
