import type { RedisClient } from '../../platform/redis';
import { parseTerminalsFile, type TerminalsFile } from './file';

/**
 * The terminals as the fleet shares them in Redis (TERMINALS_SHARED=redis): one hash holding the whole
 * registry and its generation, so an instance polls one small field and reads the content only when it moved.
 * Redis is a cache of the terminals file here: losing it loses nothing the file (or any instance) lacks.
 */
export const registryKey = (prefix: string) => `${prefix}terminals:registry`;

/**
 * Writes KEYS[1] = {generation: ARGV[1], content: ARGV[2]} only when the generation standing is lower (or none
 * stands); answers {1, generation written} or {0, generation standing}. In one script, so two publishers racing
 * (the CLI and an instance re-seeding) can never put an older generation over a newer one: that would un-revoke.
 */
const PUBLISH = `local standing = tonumber(redis.call('HGET', KEYS[1], 'generation') or '-1')
if standing >= tonumber(ARGV[1]) then return {0, standing} end
redis.call('HSET', KEYS[1], 'generation', ARGV[1], 'content', ARGV[2])
return {1, tonumber(ARGV[1])}`;

export interface PublishOutcome {
  /** Written now; false when Redis already held this generation or a newer one. */
  published: boolean;
  /** The generation Redis holds after the call. */
  generation: number;
}

export async function publishRegistry(redis: RedisClient, prefix: string, data: TerminalsFile): Promise<PublishOutcome> {
  const generation = data.generation ?? 0;
  const content = JSON.stringify({ ...data, generation });
  const [written, standing] = (await redis.eval(PUBLISH, 1, registryKey(prefix), String(generation), content)) as [number, number];
  return { published: written === 1, generation: standing };
}

/** The generation Redis holds; undefined when it holds none (never published, or lost with Redis). */
export async function sharedGeneration(redis: RedisClient, prefix: string): Promise<number | undefined> {
  const raw = await redis.hget(registryKey(prefix), 'generation');
  return raw === null ? undefined : Number(raw);
}

/** The registry Redis holds as published (JSON); undefined when it holds none. */
export async function sharedContent(redis: RedisClient, prefix: string): Promise<string | undefined> {
  return (await redis.hget(registryKey(prefix), 'content')) ?? undefined;
}

/** The registry Redis holds, validated as a terminals file is; undefined when it holds none. */
export async function readSharedRegistry(redis: RedisClient, prefix: string): Promise<TerminalsFile | undefined> {
  const content = await sharedContent(redis, prefix);
  if (content === undefined) return undefined;
  return parseTerminalsFile(`Redis ${registryKey(prefix)}`, JSON.parse(content));
}
