import type { Logger } from 'pino';
import { AppError } from '../../platform/errors';
import { isProblem, problem } from '../../platform/problem';
import { unreachedCause, type UnreachedCause } from '../call';
import { markNotDelivered, upstreamFailureKind } from '../errors';
import type { CallPolicy } from '../policy';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Consecutive failed attempts (no answer, timeout, 5xx) that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one probe call is let through. */
  halfOpenAfterMs: number;
  /** Injected for tests; default Date.now. */
  clock?: () => number;
  logger?: Logger;
  /** Hears every transition (metrics, readiness). Its errors are ignored. */
  onStateChange?: (state: BreakerState) => void;
}

/**
 * One instance's circuit breaker around the loyalty service. Closed: calls go
 * out and consecutive failures are counted. Open: calls fail at once with
 * `upstream_circuit_open` (nothing sent, so writes are queued by the outbox and
 * reads answer 503). After `halfOpenAfterMs` exactly one call is let through as
 * a probe: its success closes the circuit, its failure opens it again.
 *
 * Not cockatiel: its breaker reads Date.now directly, and these tests run on
 * an injected clock. Per instance, not shared through Redis: each instance
 * learns about an outage from its own calls within `failureThreshold` attempts.
 */
export class CircuitBreaker {
  private mode: 'closed' | 'open' = 'closed';
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  /** The last counted failure that got no HTTP answer: named when the circuit opens. */
  private lastUnreached: UnreachedCause | undefined;
  private readonly clock: () => number;
  private readonly log?: Logger;

  constructor(private readonly opts: CircuitBreakerOptions) {
    if (!Number.isInteger(opts.failureThreshold) || opts.failureThreshold < 1) throw new RangeError('failureThreshold must be a positive integer');
    if (!(opts.halfOpenAfterMs > 0)) throw new RangeError('halfOpenAfterMs must be > 0');
    this.clock = opts.clock ?? Date.now;
    this.log = opts.logger?.child({ component: 'circuit-breaker' });
  }

  get state(): BreakerState {
    if (this.mode === 'closed') return 'closed';
    return this.probing || this.clock() - this.openedAt >= this.opts.halfOpenAfterMs ? 'half_open' : 'open';
  }

  /** Consecutive failures counted while closed. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** The CallPolicy for LoyaltyClient's `policies` (put it first, outside the rate limiter). */
  readonly policy: CallPolicy = async <T>(_info: unknown, next: () => Promise<T>): Promise<T> => {
    const probe = this.admit();
    try {
      const result = await next();
      this.succeeded(probe);
      return result;
    } catch (err) {
      const verdict = judge(err);
      if (verdict === 'failure') {
        this.lastUnreached = unreachedCause(err);
        this.failed(probe);
      } else if (verdict === 'success') this.succeeded(probe);
      throw err;
    } finally {
      if (probe) this.probing = false;
    }
  };

  /** Lets a call through (true when it is the half-open probe) or throws `upstream_circuit_open`. */
  private admit(): boolean {
    if (this.mode === 'closed') return false;
    const waited = this.clock() - this.openedAt;
    if (waited < this.opts.halfOpenAfterMs || this.probing) {
      const left = this.probing ? this.opts.halfOpenAfterMs : this.opts.halfOpenAfterMs - waited;
      throw markNotDelivered(
        problem('upstream_circuit_open', 'The loyalty service is unavailable (too many recent failures); try again shortly', {
          retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)),
        }),
      );
    }
    this.probing = true;
    this.emit('half_open');
    return true;
  }

  private failed(probe: boolean): void {
    if (this.mode === 'open') {
      // Only the probe's failure restarts the wait; late failures of calls sent before opening do not.
      if (probe) this.open();
      return;
    }
    this.failures += 1;
    if (this.failures >= this.opts.failureThreshold) this.open();
  }

  private succeeded(probe: boolean): void {
    if (this.mode === 'open') {
      if (!probe) return;
      this.mode = 'closed';
      this.failures = 0;
      this.emit('closed');
      return;
    }
    this.failures = 0;
  }

  private open(): void {
    this.mode = 'open';
    this.openedAt = this.clock();
    this.emit('open');
  }

  private emit(state: BreakerState): void {
    if (state === 'open') {
      // The cause once per opening (connection refused, DNS, TLS...), with where: "opened" alone says nothing to fix.
      const cause = this.lastUnreached;
      this.log?.warn(
        { failures: this.failures, halfOpenAfterMs: this.opts.halfOpenAfterMs, ...(cause ? { cause } : {}) },
        cause
          ? `circuit to the loyalty service opened: ${cause.code} reaching ${cause.host}:${cause.port}`
          : 'circuit to the loyalty service opened: it answered with failures (5xx)',
      );
    } else this.log?.info(`circuit to the loyalty service ${state === 'closed' ? 'closed' : 'half-open: probing'}`);
    try {
      this.opts.onStateChange?.(state);
    } catch {
      // A listener's fault must not change what the call sees.
    }
  }
}

/**
 * What an attempt's outcome says about the upstream's health: no answer,
 * timeout or 5xx is a failure; any other answer (even a refusal) shows it is
 * up; our own refusals (limiter, an open circuit) and aborts say nothing.
 */
function judge(err: unknown): 'failure' | 'success' | 'neutral' {
  if (!(err instanceof AppError)) return 'neutral';
  if (isProblem(err, 'upstream_circuit_open', 'upstream_call_aborted')) return 'neutral';
  const kind = upstreamFailureKind(err);
  if (kind === 'unavailable' || kind === 'timeout') return 'failure';
  if (kind === 'rate_limited' || kind === null) return 'neutral';
  return 'success';
}
