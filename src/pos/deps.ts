import type { Logger } from 'pino';
import type { Metrics } from '../platform/metrics';
import type { LoyaltyClient } from '../upstream';
import type { OutboxStore } from './outbox/types';
import type { RedemptionStore } from './redemptions/types';
import type { OpenRedemptionCap } from './security/open-redemptions';
import type { TerminalIdentity } from './terminals/types';

/** Settings the cashier operations read. */
export interface PosSettings {
  otpEnabled: boolean;
  holdPeriodMinutes: number;
  holdSafetyMarginSeconds: number;
  refundRequiresManager: boolean;
}

/** What every cashier operation may use; built once in the app factory. */
export interface PosDeps {
  settings: PosSettings;
  loyalty: LoyaltyClient;
  redemptions: RedemptionStore;
  /** Writes queued while the upstream is out of reach (store-and-forward). */
  outbox: OutboxStore;
  /** MAX_OPEN_REDEMPTIONS_PER_TERMINAL; absent = no cap. */
  openRedemptions?: OpenRedemptionCap;
  clock: () => number;
  logger: Logger;
  /** Prometheus metrics of this instance (src/platform/metrics.ts). */
  metrics: Metrics;
}

/** Per-request context an operation needs: who calls and the request id to pass upstream. */
export interface CallContext {
  identity: TerminalIdentity;
  requestId: string;
}
