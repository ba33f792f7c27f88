import type { SliceOf } from './define';
import { environment } from './environment';
import { log } from './log';
import { http } from './http';
import { ops } from './ops';
import { security } from './security';
import { sandbox } from './sandbox';
import { loyalty } from './loyalty';
import { redis } from './redis';
import { idempotency } from './idempotency';
import { outbox } from './outbox';
import { upstream } from './upstream';
import { money } from './money';
import { pos } from './pos';
import { holdExpiry } from './hold-expiry';
import { audit } from './audit';
import { reconciliation } from './reconciliation';
import { abuse } from './abuse';
import { standIn } from './stand-in';

/**
 * Every feature's settings under the name of its slice of the configuration,
 * in the order start-up shows them and the generated docs list them.
 */
export const FEATURES = {
  env: environment,
  log,
  http,
  ops,
  security,
  sandbox,
  loyalty,
  redis,
  idempotency,
  outbox,
  upstream,
  money,
  pos,
  holdExpiry,
  audit,
  reconciliation,
  abuse,
  standIn,
};

/** The whole configuration: each feature's slice under its name. */
export type Settings = { [K in keyof typeof FEATURES]: SliceOf<(typeof FEATURES)[K]> };

export {
  environment,
  log,
  http,
  ops,
  security,
  sandbox,
  loyalty,
  redis,
  idempotency,
  outbox,
  upstream,
  money,
  pos,
  holdExpiry,
  audit,
  reconciliation,
  abuse,
  standIn,
};
export { NODE_ENVS, type Deployment, type Feature, type NodeEnv, type Setting, type SettingDoc } from './define';
export type { LogSettings } from './log';
export type { HttpSettings, TlsSettings } from './http';
export { OPS_PLACES, type OpsPlace, type OpsSettings } from './ops';
export type { SecuritySettings } from './security';
export type { SandboxSettings } from './sandbox';
export type { LoyaltySettings } from './loyalty';
export type { RedisSettings } from './redis';
export type { IdempotencySettings } from './idempotency';
export type { OutboxSettings } from './outbox';
export type { UpstreamSettings } from './upstream';
export type { MoneySettings } from './money';
export type { CashierApiSettings } from './pos';
export type { HoldExpirySettings } from './hold-expiry';
export type { AuditSettings } from './audit';
export type { AbuseSettings, SignalThresholds } from './abuse';
export type { StandInSettings } from './stand-in';
export type { ReconciliationSettings } from './reconciliation';
