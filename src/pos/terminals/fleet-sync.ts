import type { Logger } from 'pino';
import type { RedisClient } from '../../platform/redis';
import type { TerminalRegistry } from './registry';
import { publishRegistry, readSharedRegistry, sharedGeneration } from './shared';

/** What an instance found in Redis at its last look, compared with the registry it serves. */
export type SharedState =
  /** Redis holds the generation served. */
  | 'in_step'
  /** Redis holds no registry (never published, or lost with Redis's data set). */
  | 'missing'
  /** Redis holds an older generation than this instance serves (a failover lost the last write). */
  | 'behind'
  /** Redis could not be asked. */
  | 'unreachable';

export interface RegistrySyncOptions {
  registry: TerminalRegistry;
  redis: RedisClient;
  prefix: string;
  logger: Logger;
  /** How often Redis's generation is looked at (one HGET). Revocation reaches every instance within about this. */
  intervalMs?: number;
  /** Called when this instance wrote its own copy back into Redis. */
  onReseed?: (reason: 'missing' | 'behind') => void;
}

/**
 * Keeps one instance's registry in step with the fleet's (TERMINALS_SHARED=redis). A poll, not only a
 * subscription: pub/sub drops what was sent while a connection was down, a poll catches up at its next look.
 *
 * The rule throughout: the highest generation wins. A newer one in Redis is taken; when Redis holds none or an
 * older one, this instance keeps serving what it has (no till locked out) and writes it back, the script in
 * shared.ts refusing it if anything newer arrived meanwhile. An instance with nothing never writes.
 */
export class RegistrySync {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private said: SharedState = 'in_step';
  /** The state at the last look. */
  state: SharedState = 'in_step';

  constructor(private readonly opts: RegistrySyncOptions) {}

  /** One look now (concurrent calls share it); never throws, trouble is logged once per episode. */
  check(): Promise<void> {
    this.running ??= this.look().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), this.opts.intervalMs ?? 500);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async look(): Promise<void> {
    const { registry, redis, prefix, logger } = this.opts;
    try {
      registry.activeTerminals(); // looks at this host's file first, if it has one and the look is due
      const standing = await sharedGeneration(redis, prefix);
      const mine = registry.generation;
      if (standing !== undefined && standing > mine) {
        const data = await readSharedRegistry(redis, prefix);
        if (data && registry.adopt(data)) {
          logger.info({ component: 'terminals', generation: registry.generation, terminals: registry.terminalCount }, 'terminals registry taken from Redis');
        }
        return this.settle('in_step');
      }
      if (standing === mine) return this.settle('in_step');
      const reason = standing === undefined ? 'missing' : 'behind';
      this.settle(reason);
      const served = registry.snapshot();
      if (!served) return; // nothing to give: not ready until the operator publishes (terminal publish)
      const outcome = await publishRegistry(redis, prefix, served);
      if (outcome.published) {
        this.opts.onReseed?.(reason);
        logger.warn(
          { component: 'terminals', generation: outcome.generation, was: standing ?? null },
          `terminals registry re-seeded into Redis from this instance's copy (Redis held ${standing === undefined ? 'none' : `generation ${standing}`})`,
        );
        this.settle('in_step');
      } else if (outcome.generation === served.generation) {
        this.settle('in_step'); // another instance wrote the same generation back first
      }
    } catch (err) {
      this.settle('unreachable', err);
    }
  }

  /** Says a change of state once: trouble when it starts, and when it is over. */
  private settle(state: SharedState, err?: unknown): void {
    this.state = state;
    if (state === this.said) return;
    const { logger, registry } = this.opts;
    const served = { component: 'terminals', generation: registry.generation, terminals: registry.terminalCount };
    if (state === 'in_step') logger.info(served, 'terminals registry in Redis is in step again');
    else if (state === 'unreachable')
      logger.error({ ...served, problem: (err as Error).message }, 'terminals registry: Redis cannot be read; serving the terminals this instance holds');
    else if (registry.generation < 0)
      logger.error(served, 'terminals registry: none in Redis and none here; no terminal can call until one is published (terminal publish)');
    else logger.warn({ ...served, redis: state }, `terminals registry ${state} in Redis; serving the terminals this instance holds and writing them back`);
    this.said = state;
  }
}
