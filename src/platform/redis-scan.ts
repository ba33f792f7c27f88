import type { Redis, RedisClient } from './redis';

/**
 * Every key matching `match` (a SCAN pattern naming the full key, prefix
 * included), in batches, on every master of a Cluster (SCAN reads one node).
 * Keys written while the scan runs may or may not be seen; none present for
 * the whole scan is missed. For rare whole-data-set passes (a customer's
 * erasure, the adoption of old claims), never for a request's path.
 */
export async function scanKeys(
  redis: RedisClient,
  match: string,
  each: (keys: string[], node: Redis) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  const nodes: Redis[] = 'nodes' in redis ? redis.nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      // Asked before each batch, so a pass stopped (e.g. at shutdown) sends no further SCAN.
      if (stopped()) return;
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await each(keys, node);
    } while (cursor !== '0');
  }
}

/** The string values of `keys` as read on `node`: one MGET where one node holds them all, else GETs in a pipeline (keys of many slots). */
export async function readStrings(redis: RedisClient, node: Redis, keys: string[]): Promise<(string | null)[]> {
  if (node === redis) return node.mget(...keys);
  const replies = (await node.pipeline(keys.map((k) => ['get', k])).exec()) ?? [];
  return replies.map(([err, v]) => (err ? null : (v as string | null)));
}
