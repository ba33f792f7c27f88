import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { SandboxClock } from './clock';
import type { BatchJobs } from './state/batch-jobs';
import type { FaultRules } from './state/faults';
import type { RequestLog } from './state/request-log';
import type { SandboxStore } from './state/store';

/** What every route and operation of the sandbox is given. */
export interface SandboxContext {
  store: SandboxStore;
  clock: SandboxClock;
  logger: Logger;
  /**
   * Run after key checks and before every v4.0 operation handler, with
   * `res.locals.operation` set (e.g. fault injection hooks in here).
   */
  beforeOperation: RequestHandler[];
  /** Called by `close()` (e.g. to stop background jobs). */
  onClose: (() => void | Promise<void>)[];
  /** Injected faults (admin API); cleared by reset. */
  faults: FaultRules;
  /** Requests each account's limit buckets let through lately (http/rate-limits.ts); cleared by reset. */
  requestLog: RequestLog;
  /** Background batch order jobs; cleared by reset, stopped by close. */
  batchJobs: BatchJobs;
}
