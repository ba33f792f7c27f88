import { ConflictError, ServiceUnavailableError } from '../../platform/errors';
import type { Config } from '../../platform/config';
import type { RedisClient } from '../../platform/redis';
import { raiseGeneration, readTerminalsFile, type TerminalsFile } from './file';
import { publishRegistry, sharedContent, sharedGeneration } from './shared';

const sameContent = (raw: string | undefined, data: TerminalsFile) =>
  raw !== undefined && raw === JSON.stringify({ ...data, generation: data.generation ?? 0 });

/**
 * The CLI's side of TERMINALS_SHARED=redis: the file is written first (it is the copy that is backed up), then
 * the whole registry is published. A Redis that holds a newer generation than the file means this is not the
 * file the fleet's registry came from (another host's, or an old backup): changes are refused before writing.
 */
export interface Fleet {
  /** Refuses when Redis holds a newer generation than `file`. */
  checkBefore(file: string): Promise<void>;
  /** Publishes what `file` holds now; says what it did. */
  publish(file: string, opts?: { force?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function openFleet(config: Config): Promise<Fleet> {
  // Loaded here only: a CLI without TERMINALS_SHARED=redis never pays for the Redis client.
  const { connectRedis, waitForRedis } = await import('../../platform/redis');
  const { createLogger } = await import('../../platform/logger');
  const target = config.redis.target;
  if (!target) throw new ConflictError('redis_not_configured', 'TERMINALS_SHARED=redis but no Redis is configured');
  const redis: RedisClient = connectRedis(target, createLogger({ level: 'fatal', pretty: false, destination: process.stderr }), { retryMaxMs: 500 });
  const prefix = config.redis.keyPrefix;
  try {
    await waitForRedis(redis, 5000);
  } catch (err) {
    redis.disconnect();
    throw new ServiceUnavailableError('redis_unavailable', `Redis cannot be reached (${(err as Error).message}); nothing was changed`);
  }
  const generationOf = (file: string) => readTerminalsFile(file)?.generation ?? 0;
  const newer = (file: string, standing: number) =>
    new ConflictError(
      'registry_newer_in_redis',
      `Redis holds generation ${standing} of the terminals, newer than ${file} (generation ${generationOf(file)}): ` +
        'this is not the file the fleet was last published from. Use that file (or its backup); ' +
        "publish --force makes this file the newest instead (its revocations and tokens replace the fleet's)",
    );
  return {
    async checkBefore(file) {
      const standing = await sharedGeneration(redis, prefix);
      if (standing !== undefined && standing > generationOf(file)) throw newer(file, standing);
    },
    async publish(file, opts = {}) {
      let data: TerminalsFile | null = readTerminalsFile(file);
      if (!data) throw new ConflictError('terminals_file_missing', `${file} does not exist: nothing to publish`);
      const standing = await sharedGeneration(redis, prefix);
      const mine = data.generation ?? 0;
      if (data.generation === undefined && !(standing !== undefined && standing > mine)) {
        data = raiseGeneration(file, standing ?? 0); // its first publish: from now on every change counts
      } else if (standing !== undefined && standing > mine) {
        if (!opts.force) throw newer(file, standing);
        data = raiseGeneration(file, standing); // forced: the file becomes the newest, written so first
      } else if (standing === mine && !sameContent(await sharedContent(redis, prefix), data)) {
        // The same generation with other content: the file was edited by hand. Raised, so every instance takes it.
        data = raiseGeneration(file, standing);
      }
      const outcome = await publishRegistry(redis, prefix, data);
      if (outcome.published) return `Published generation ${outcome.generation} to Redis; every instance serves it within about a second.`;
      if (outcome.generation === (data.generation ?? 0)) return `Redis already holds generation ${outcome.generation}; nothing to publish.`;
      throw newer(file, outcome.generation);
    },
    close: () =>
      redis.quit().then(
        () => undefined,
        () => redis.disconnect(),
      ),
  };
}
