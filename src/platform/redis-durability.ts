import { Cluster } from 'ioredis';
import type { Redis, RedisClient } from './redis';

/**
 * Whether a Redis keeps what the BFF writes: it persists (AOF, or RDB
 * snapshots) and never evicts a key to make room (maxmemory-policy
 * noeviction). Asked by CONFIG GET; where a managed Redis hides CONFIG, by
 * INFO, which shows AOF and the policy but not RDB save points, so there only
 * AOF counts as shown.
 */

/** What is wrong with one node, in words for a start-up line; empty when it keeps what it is given. */
export async function nodeDurabilityProblems(node: Redis, where: string): Promise<string[]> {
  const config = await configOf(node);
  const problems: string[] = [];
  if (config) {
    const aof = config.appendonly === 'yes';
    const rdb = (config.save ?? '').trim() !== '';
    if (!aof && !rdb)
      problems.push(`Redis ${where} does not persist (appendonly no, no save points): a restart empties it; set appendonly yes (or RDB save points)`);
    if (config['maxmemory-policy'] !== 'noeviction')
      problems.push(`Redis ${where} may evict keys (maxmemory-policy ${config['maxmemory-policy'] ?? 'unknown'}); set maxmemory-policy noeviction`);
    return problems;
  }
  const persistence = infoFields(await node.info('persistence'));
  const memory = infoFields(await node.info('memory'));
  if (persistence.aof_enabled !== '1')
    problems.push(
      `Redis ${where} hides CONFIG and INFO persistence shows AOF off (aof_enabled:${persistence.aof_enabled ?? 'absent'}); ` +
        'INFO does not show RDB save points, so persistence cannot be told: turn AOF on, or set REDIS_DURABILITY_CHECK=warn if the provider snapshots it',
    );
  if (memory.maxmemory_policy !== 'noeviction')
    problems.push(
      `Redis ${where} may evict keys (INFO memory maxmemory_policy:${memory.maxmemory_policy ?? 'absent'}); set its maxmemory-policy to noeviction`,
    );
  return problems;
}

/** What is wrong with the client's master (each master of a Cluster); `where` names it in the lines. */
export async function redisDurabilityProblems(client: RedisClient, where: string): Promise<string[]> {
  if (!(client instanceof Cluster)) return nodeDurabilityProblems(client, where);
  const all = await Promise.all(client.nodes('master').map((n) => nodeDurabilityProblems(n, `${where} master ${n.options.host}:${n.options.port}`)));
  return all.flat();
}

/** CONFIG GET's answer, or undefined where CONFIG is renamed away or not permitted. */
async function configOf(node: Redis): Promise<Record<string, string> | undefined> {
  try {
    // One parameter per call: CONFIG GET takes several only from Redis 7.
    const out: Record<string, string> = {};
    for (const name of ['appendonly', 'save', 'maxmemory-policy']) {
      const [key, value] = (await node.config('GET', name)) as string[];
      if (key !== undefined) out[key] = value;
    }
    return out;
  } catch (err) {
    if (/unknown command|NOPERM|no permissions/i.test((err as Error).message)) return undefined;
    throw err;
  }
}

function infoFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) out[line.slice(0, at)] = line.slice(at + 1).trim();
  }
  return out;
}
