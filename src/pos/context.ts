import type { Logger } from 'pino';
import type { Metrics } from '../platform/metrics';
import type { LoyaltyClient, TillWait } from '../upstream';
import type { Repair } from './money/repairs';
import type { PosSettings } from './settings';
import type { TerminalIdentity } from './terminals/types';

/** Per-request context an operation needs: who calls and the request id to pass upstream. */
export interface CallContext {
  identity: TerminalIdentity;
  requestId: string;
  /** X-Cashier-Id and X-Shift-Id as the till sent them (validated in src/pos/audit/cashier.ts). */
  cashierId?: string;
  shiftId?: string;
  /** How long the till waits (`Prefer: wait` or its store's default), when it said: src/pos/http/answer-in-time.ts. */
  till?: TillWait;
}

/**
 * The parts every feature's use cases draw on. A use case names the ones it
 * uses (`Pick<SharedDeps, ...>` and its own feature's stores), so what it can
 * touch is in its signature; the app gives each the whole set (src/pos/deps.ts).
 */
export interface SharedDeps {
  settings: PosSettings;
  loyalty: LoyaltyClient;
  clock: () => number;
  logger: Logger;
  /** Prometheus metrics of this instance (src/platform/metrics.ts). */
  metrics: Metrics;
  /** Claims whose upstream outcome is unknown or could not be recorded: settled from the upstream later. */
  repairs?: { add(repair: Repair): void };
}
