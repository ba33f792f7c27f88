import type { Logger } from 'pino';

export interface ShutdownPlan {
  logger: Logger;
  /** SHUTDOWN_GRACE_SECONDS in ms: readiness is 503 and the port still serves, so a balancer ejects the instance first. */
  graceMs: number;
  /** SHUTDOWN_TIMEOUT_MS: how long the drain may take before the process gives up and exits 1. */
  drainTimeoutMs: number;
  /** At the first signal: readiness 503, answers close their connections; nothing stops yet. */
  leave(): void;
  /** After the grace, in order: stop accepting, finish in-flight requests, stop the workers, close the stores. */
  closers: readonly (() => Promise<void>)[];
  exit(code: number): void;
}

/**
 * SIGTERM or SIGINT: grace, then drain, then exit, each phase logged once. A
 * second signal during the grace ends it at once (an operator who means now);
 * during the drain it changes nothing, the drain's own bound still holds.
 */
export function onShutdownSignals(plan: ShutdownPlan): void {
  let phase: 'running' | 'grace' | 'draining' = 'running';
  let endGrace = () => undefined as void;
  const { logger } = plan;

  const drain = async () => {
    phase = 'draining';
    const startedAt = Date.now();
    logger.info({ timeoutMs: plan.drainTimeoutMs }, 'shutdown: draining: no new connections; finishing requests in flight, then stopping the workers');
    // The bound: requests still running after it are cut off, and the exit code says so.
    const timer = setTimeout(() => {
      logger.error({ timeoutMs: plan.drainTimeoutMs }, 'shutdown took too long; exiting');
      logger.flush?.();
      plan.exit(1);
    }, plan.drainTimeoutMs);
    timer.unref();
    for (const close of plan.closers) await close().catch((err: unknown) => logger.error({ err }, 'error while closing'));
    logger.info({ durationMs: Date.now() - startedAt }, 'shutdown complete');
    logger.flush?.();
    plan.exit(0);
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (phase === 'grace') {
      logger.info({ signal }, 'shutdown: second signal; ending the grace period now');
      endGrace();
      return;
    }
    if (phase !== 'running') return;
    phase = 'grace';
    plan.leave();
    logger.info(
      { signal, graceMs: plan.graceMs, drainTimeoutMs: plan.drainTimeoutMs },
      'shutdown: grace period: /readyz answers 503 (shutting_down); still serving, every answer closes its connection (a second signal ends the grace now)',
    );
    void new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, plan.graceMs);
      endGrace = () => {
        clearTimeout(timer);
        resolve();
      };
    }).then(drain);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
