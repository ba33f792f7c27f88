import type { StoredResponse } from '../stored-response';

/**
 * The read-back of a request the till stopped waiting for (answered 202 at its
 * deadline, `Prefer: wait`): written only then, settled with the final answer
 * exactly as the route would have given it, kept like idempotency records.
 */
export interface TillAnswer {
  /** The answer's id: a UUID made per 202 (the end of its Location), never the till's X-Request-Id, which it may reuse. */
  requestId: string;
  terminalId: string;
  /** When the 202 was given (epoch ms). */
  createdAt: number;
  /** The final answer; absent while the request still runs. */
  response?: StoredResponse;
  /**
   * Who decided first, for a hold that lands after the 202: `till` (it came
   * back: read the answer or retried with the key), or `released` (the hold
   * landed first and was let go). Set once.
   */
  fate?: AnswerFate;
}

export type AnswerFate = 'till' | 'released';

export interface TillAnswerStore {
  readonly kind: 'memory' | 'redis';
  /** Records a 202 given at the deadline; `key` (the Idempotency-Key) finds it again from a same-key retry. */
  open(a: { terminalId: string; requestId: string; key?: string; createdAt: number }, ttlMs: number): Promise<void>;
  get(terminalId: string, requestId: string): Promise<TillAnswer | undefined>;
  /** The request id of the 202 given under this terminal's Idempotency-Key, if any. */
  byKey(terminalId: string, key: string): Promise<string | undefined>;
  settle(terminalId: string, requestId: string, response: StoredResponse): Promise<void>;
  /** Sets the fate unless one is set; the fate that holds after (undefined when there is no record). */
  decide(terminalId: string, requestId: string, fate: AnswerFate): Promise<AnswerFate | undefined>;
  /** Drops every settled answer whose response `names` picks (a customer's erasure); how many. A whole-store pass. */
  forgetAnswers(names: (response: StoredResponse) => boolean): Promise<number>;
}
