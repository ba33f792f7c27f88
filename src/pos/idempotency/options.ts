import type { Logger } from 'pino';
import type { TillAnswerStore } from '../till-answers/types';
import type { IdempotencyStore } from './types';

export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** How long a finished response is replayed. */
  ttlMs: number;
  /** How long a running request holds its key without renewing (a crashed one frees it after this). */
  leaseMs: number;
  clock?: () => number;
  logger: Logger;
  /** The answers given 202 at a till's deadline: a same-key retry is the till coming back for one (../till-answers). */
  answers?: TillAnswerStore;
}
