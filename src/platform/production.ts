import { existsSync, readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from './config';
import { connectRedis, waitForRedis } from './redis';
import { redisDurabilityProblems } from './redis-durability';

/**
 * What NODE_ENV=production refuses before the BFF starts: the parts that make
 * `npm start` work on a laptop (the bundled sandbox, its demo keys, an
 * in-process store) would turn real sales into a toy ledger a restart erases.
 * Each problem names the setting and what to do. The only way around one is
 * ALLOW_IN_MEMORY_STORE, for a single-instance trial, and start-up warns of it.
 */
export function productionProblems(config: Config): string[] {
  if (config.env !== 'production') return [];
  const problems: string[] = [];
  if (!config.loyalty.baseUrl) {
    problems.push(
      'LOYALTY_BASE_URL: required with NODE_ENV=production; without it the BFF runs against the bundled sandbox, an in-memory ledger with demo keys ' +
        "that a restart erases. Set LOYALTY_BASE_URL, LOYALTY_API_KEY and LOYALTY_SECRET_KEY to the loyalty account's (to try the product, use NODE_ENV=development)",
    );
  }
  if (!config.redis.target && !config.redis.allowInMemory) {
    problems.push(
      'REDIS_URL: required with NODE_ENV=production (or REDIS_CLUSTER_NODES, or REDIS_SENTINELS); without Redis, open redemptions, Idempotency-Keys and ' +
        'queued writes live in this process and a restart loses them. Set REDIS_URL=redis://<host>:6379/0; only for a single-instance trial that may lose them, ' +
        'set ALLOW_IN_MEMORY_STORE=true',
    );
  }
  const demo = demoKeys(config.sandbox.accountsFile);
  // The next key pair is refused like the current one: a rotation to a demo key would go live at the first key failure.
  const keys = [
    ['LOYALTY_API_KEY', config.loyalty.apiKey, demo.apiKeys, 'API key'],
    ['LOYALTY_SECRET_KEY', config.loyalty.secretKey, demo.secretKeys, 'secret key'],
    ['LOYALTY_API_KEY_NEXT', config.loyalty.apiKeyNext, demo.apiKeys, 'API key'],
    ['LOYALTY_SECRET_KEY_NEXT', config.loyalty.secretKeyNext, demo.secretKeys, 'secret key'],
  ] as const;
  for (const [variable, key, known, what] of keys) {
    if (key !== undefined && known.has(key)) {
      problems.push(`${variable}: a demo key of the bundled sandbox (${config.sandbox.accountsFile}) in production; set the loyalty account's own ${what}`);
    }
  }
  return problems;
}

/** The keys of the sandbox's accounts file: anything that authenticates there is a demo key. Unreadable: none known. */
function demoKeys(file: string): { apiKeys: Set<string>; secretKeys: Set<string> } {
  const apiKeys = new Set<string>();
  const secretKeys = new Set<string>();
  try {
    if (existsSync(file)) {
      for (const account of JSON.parse(readFileSync(file, 'utf8')) as { apiKey?: unknown; secretKey?: unknown }[]) {
        if (typeof account.apiKey === 'string') apiKeys.add(account.apiKey);
        if (typeof account.secretKey === 'string') secretKeys.add(account.secretKey);
      }
    }
  } catch {
    // Not the sandbox's to judge here: a broken accounts file matters only to the sandbox, which says so itself.
  }
  return { apiKeys, secretKeys };
}

/**
 * Whether the configured Redis keeps what the BFF writes (persistence, noeviction), per
 * REDIS_DURABILITY_CHECK: the problems to refuse on (`refuse`), or none after warning of
 * each (`warn`). A Redis that cannot be reached is left to the start-up that follows.
 */
export async function redisDurability(config: Config, logger: Logger): Promise<string[]> {
  const target = config.redis.target;
  if (!target || config.redis.durabilityCheck === 'off') return [];
  const client = connectRedis(target, logger.child({ check: 'redis durability' }), { lazy: true });
  let problems: string[];
  try {
    try {
      await waitForRedis(client, 10_000);
    } catch (err) {
      logger.warn({ err: { message: (err as Error).message } }, 'could not reach Redis to ask whether it persists and keeps its keys');
      return [];
    }
    const where = target.kind === 'cluster' ? 'cluster' : target.kind === 'sentinel' ? `sentinel master "${target.name}"` : 'at REDIS_URL';
    try {
      problems = await redisDurabilityProblems(client, where);
    } catch (err) {
      // Reached, but it would not say (an ACL without CONFIG and INFO, a provider's own wording): not known to keep its keys.
      problems = [`Redis ${where} would not say whether it persists and keeps its keys (${(err as Error).message})`];
    }
  } finally {
    client.disconnect();
  }
  if (config.redis.durabilityCheck === 'refuse') return problems.map((p) => `REDIS_DURABILITY_CHECK: ${p} (or set REDIS_DURABILITY_CHECK=warn to run anyway)`);
  for (const p of problems) logger.warn({ setting: 'REDIS_DURABILITY_CHECK' }, `${p}; a lost data set loses claims, Idempotency-Keys and queued writes`);
  return [];
}
