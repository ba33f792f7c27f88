import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { API_PREFIX, LimitBucket, OPERATION_BUCKET, OPERATIONS, OperationId } from '../contract';
import { AppError } from '../platform/errors';
import { isProblem, problem } from '../platform/problem';
import { parseOrThrow } from '../platform/validation';
import { AnswerOf, ANSWERS } from './answers';
import { fromUpstreamStatus, invalidResponse, isBudgetRefusal, parseRetryAfter, upstreamFailureKind, UpstreamFailureKind } from './errors';
import { CallInfo, CallPolicy, CallPriority, composePolicies } from './policy';
import { DEFAULT_RETRY_TUNING, realSleep, RetryTuning, Sleep, withRetries } from './retry';
import { REQUESTS } from './requests';
import { RawAnswer, Transport } from './transport';
import { LoyaltyKeyPair, LoyaltyKeys, type KeySlot } from './keys';
import { currentTill, isReadCall, tillDeadlineReached, TillWait } from './till';

/** A read given less time than this by the till's deadline is not sent: it could not be answered in time. */
const MIN_READ_MS = 50;

export interface LoyaltyCallContext {
  /** Passed on as `X-Request-Id` (a fresh one when absent or not a sane id). */
  requestId?: string;
  /** Aborts the call and any wait between attempts. */
  signal?: AbortSignal;
  /** Who waits for the call, for the fleet's budget (./policy); default `cashier`. */
  priority?: CallPriority;
  /**
   * A check that must pass before anything is sent (e.g. "this customer has no
   * queued writes"). It is started in the same tick as the first attempt's
   * policies, so its Redis command shares a write with the budget's
   * reservation, and awaited before the first byte goes out. If it rejects,
   * the call ends with its error and nothing is sent.
   */
  precondition?: () => Promise<void>;
  /**
   * The bucket the next step of the write this call starts will use (a hold's
   * sale, recorded as a payment or an order): the call is refused before it is
   * sent when a call of its priority would find no room there, so a checkout
   * is not begun whose second step would have to wait for budget.
   */
  thenNeeds?: LimitBucket;
  /** Send with this key slot only, no fallback to the other (the key check). */
  keySlot?: KeySlot;
  /**
   * This call only reads, though its operation may also write (`couponsValidate`
   * with `lock: false`): bounded by the till's deadline like a GET, and never a
   * write in flight at it (no 202 for a check).
   */
  readOnly?: boolean;
  /**
   * The till's deadline (./till); default: the one of the request this runs
   * for, whatever the priority (a `background` call the request makes is
   * still sent for it: after a 503 "nothing was done" it must not go out).
   * `null`: not bounded by any, for work a request starts that the till does
   * not wait for (releasing a hold it was not told of, a detached refresh).
   */
  till?: TillWait | null;
}

/** One attempt's result for metrics: `ok`, a failure kind, `auth_failed`, `aborted` or `error` (local). */
export type UpstreamOutcome = 'ok' | UpstreamFailureKind | 'auth_failed' | 'aborted' | 'error';

export interface UpstreamCallEvent {
  operation: OperationId;
  outcome: UpstreamOutcome;
  /** The HTTP status, when an answer came. */
  status?: number;
  durationMs: number;
  attempt: number;
}

export interface LoyaltyClientOptions {
  baseUrl: string;
  apiKey: string;
  secretKey: string;
  /** LOYALTY_*_KEY_NEXT: tried once when the key in use is refused, and used from then on if accepted (./keys). */
  nextKeys?: LoyaltyKeyPair;
  /** The Retry-After of `loyalty_key_refused`, in seconds (default 30). */
  keyRetryAfterSeconds?: number;
  /** Per attempt, wall clock, including reading the body. */
  timeoutMs: number;
  /** Attempts after the first, for calls that are safe to send again. */
  retries: number;
  logger: Logger;
  /** Called after every attempt that was sent; for metrics. */
  onCall?: (e: UpstreamCallEvent) => void;
  /** Called when the fleet's budget refuses an attempt before it is sent; for metrics. */
  onBudgetRefusal?: (operation: OperationId) => void;
  /** Wrap every attempt, first outermost: circuit breaker, the fleet's budget (see ./policy). */
  policies?: readonly CallPolicy[];
  /** The account's High Security Mode: send the secret key on every call, events too. */
  highSecurityMode?: boolean;
  /** Per keep-alive agent; default 32. */
  maxSockets?: number;
  /** Default 5 MiB. */
  maxResponseBytes?: number;
  retryTuning?: Partial<Omit<RetryTuning, 'retries'>>;
  /** Injected for tests; default a real timer. */
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
}

/** What the generic `call()` sends; path params are URL-encoded here. */
export interface CallRequest {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What the client returns for an operation: its answer as ./answers reads it. */
export type ResponseOf<K extends OperationId> = AnswerOf<K>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The generic v4.0 caller: keys, request id, retries, policies, reading the
 * answer (./answers), error mapping, logging and metrics. `LoyaltyClient` adds one
 * typed method per operation on top.
 */
export class LoyaltyCaller {
  private readonly transport: Transport;
  private readonly policy: CallPolicy;
  private readonly tuning: RetryTuning;
  private readonly log: Logger;
  /** The key pairs and what is known of each (./keys). */
  readonly keys: LoyaltyKeys;

  constructor(private readonly options: LoyaltyClientOptions) {
    if (!options.apiKey || !options.secretKey) throw new Error('LoyaltyClient needs apiKey and secretKey');
    this.keys = new LoyaltyKeys({
      current: { apiKey: options.apiKey, secretKey: options.secretKey },
      next: options.nextKeys,
      logger: options.logger,
      retryAfterSeconds: options.keyRetryAfterSeconds,
      now: options.now,
    });
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      maxSockets: options.maxSockets ?? 32,
      maxResponseBytes: options.maxResponseBytes ?? 5 * 1024 * 1024,
    });
    this.policy = composePolicies(options.policies ?? []);
    this.tuning = { ...DEFAULT_RETRY_TUNING, ...options.retryTuning, retries: options.retries };
    this.log = options.logger.child({ component: 'loyalty-client' });
  }

  /**
   * Calls `operation` and returns its validated body, or throws a platform
   * AppError. A duplicate answer is thrown (`duplicate_transaction`), also after
   * an attempt whose answer was lost: only the upstream's record of the id can
   * tell whether it is this write (./outcome, ./records).
   */
  call<K extends OperationId>(operation: K, request: CallRequest = {}, ctx: LoyaltyCallContext = {}): Promise<ResponseOf<K>> {
    const sendsSecret = OPERATIONS[operation].keys === 'both' || this.options.highSecurityMode === true;
    return this.keys.use((pair) => this.run(operation, request, ctx, pair), { slot: ctx.keySlot, sendsSecret });
  }

  /** Destroys the kept-alive sockets (shutdown, tests). */
  close(): void {
    this.transport.close();
  }

  private async run<K extends OperationId>(operation: K, request: CallRequest, ctx: LoyaltyCallContext, keys: LoyaltyKeyPair): Promise<ResponseOf<K>> {
    const op = OPERATIONS[operation];
    const requestId = ctx.requestId && REQUEST_ID.test(ctx.requestId) ? ctx.requestId : randomUUID();
    const path = API_PREFIX + op.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => encodeParam(name, request.params?.[name]));
    // What we send is checked like the upstream would check it, so a bad value is a clear 400 here, not an opaque 3003 there.
    const requestSchema = REQUESTS[operation] ?? ('request' in op ? op.request : undefined);
    const body = requestSchema ? parseOrThrow(requestSchema, request.body, `${operation} request`) : undefined;
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': 'pos-loyalty-bff',
      ...request.headers,
      apikey: keys.apiKey,
      'X-Request-Id': requestId,
    };
    if (op.keys === 'both' || this.options.highSecurityMode) headers.secretkey = keys.secretKey;
    if (body !== undefined) headers['Content-Type'] = 'application/json';

    let precondition: Promise<void> | undefined;
    const till = ctx.till === null ? undefined : (ctx.till ?? currentTill());
    const read = ctx.readOnly === true || isReadCall(operation);
    // Reads get only the time the till has left; a write keeps its full timeout (once sent, the till is answered 202).
    const bounded = () => (read && till?.bounding ? till.deadline : undefined);
    return withRetries(
      {
        operation,
        tuning: this.tuning,
        sleep: this.options.sleep ?? realSleep,
        random: this.options.random ?? Math.random,
        signal: ctx.signal,
        deadline: bounded,
        onRetry: (attempt, delayMs, err) => this.log.debug({ operation, requestId, attempt, delayMs, code: (err as AppError).code }, 'loyalty call retried'),
      },
      async ({ attempt }) => {
        const info: CallInfo = {
          operation,
          method: op.method,
          bucket: OPERATION_BUCKET[operation],
          priority: ctx.priority ?? 'cashier',
          attempt,
          requestId,
          signal: ctx.signal,
          deadline: till?.bounding ? till.deadline : undefined,
          thenNeeds: ctx.thenNeeds,
        };
        // Started once, with the first attempt's policies; every attempt waits for it (one refused by a policy never reached it).
        if (attempt === 1 && ctx.precondition) {
          precondition = ctx.precondition();
          precondition.catch(() => undefined);
        }
        return this.policy(info, async () => {
          if (precondition) await precondition;
          const deadline = bounded();
          const timeoutMs = deadline === undefined ? this.options.timeoutMs : Math.min(this.options.timeoutMs, deadline - Date.now());
          if (timeoutMs < MIN_READ_MS) throw tillDeadlineReached();
          till?.beforeSend(read ? 'read' : operation);
          return this.attempt(operation, info, () => {
            const sent = this.transport.send({ method: op.method, path, query: request.query, headers, body, timeoutMs, signal: ctx.signal });
            // A read cut short by the till's deadline did nothing: the till hears that, not "the loyalty service is slow".
            if (timeoutMs >= this.options.timeoutMs) return sent;
            return sent.catch((err: unknown) => Promise.reject(upstreamFailureKind(err) === 'timeout' ? tillDeadlineReached() : err));
          });
        }).catch((err: unknown) => {
          if (isBudgetRefusal(err)) this.options.onBudgetRefusal?.(operation);
          throw err;
        });
      },
    );
  }

  /** One HTTP exchange: sent, interpreted, logged and reported. */
  private async attempt<K extends OperationId>(operation: K, info: CallInfo, send: () => Promise<RawAnswer>): Promise<ResponseOf<K>> {
    const started = performance.now();
    let status: number | undefined;
    let outcome: UpstreamOutcome = 'error';
    try {
      const answer = await send();
      status = answer.status;
      const body = this.interpret(operation, info, answer);
      outcome = 'ok';
      return body;
    } catch (err) {
      outcome = outcomeOf(err);
      // No HTTP answer at all: where we could not reach, for the breaker's "opened" line.
      if (status === undefined && err instanceof AppError && upstreamFailureKind(err) !== null) unreached.set(err, this.unreachedAt(err));
      throw err;
    } finally {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      this.log.debug({ operation, method: info.method, status, durationMs, requestId: info.requestId, attempt: info.attempt, outcome }, 'loyalty call');
      try {
        this.options.onCall?.({ operation, outcome, status, durationMs, attempt: info.attempt });
      } catch (hookErr) {
        this.log.warn({ err: hookErr }, 'onCall hook failed');
      }
    }
  }

  /** The service's host and port (never the URL's credentials, path or query) and the transport's code and words. */
  private unreachedAt(err: AppError): UnreachedCause {
    let host = '';
    let port = '';
    try {
      const url = new URL(this.options.baseUrl);
      host = url.hostname;
      port = url.port || (url.protocol === 'https:' ? '443' : '80');
    } catch {
      // A base URL that does not parse was refused at start-up; nothing to add.
    }
    const words = err.cause instanceof Error ? err.cause.message : err.message;
    const code = /^([A-Z0-9_]+):/.exec(words)?.[1] ?? err.code;
    return { code, host, port, message: words.slice(0, 200) };
  }

  private interpret<K extends OperationId>(operation: K, info: CallInfo, answer: RawAnswer): ResponseOf<K> {
    const json = parseJson(answer.text);
    const ctx = { operation, requestId: info.requestId, status: answer.status };
    if (answer.status >= 200 && answer.status < 300) {
      const parsed = ANSWERS[operation].safeParse(json);
      if (parsed.success) return parsed.data as ResponseOf<K>;
      // Field paths and what is wrong, never values: they may be personal data.
      const fields = parsed.error.issues.slice(0, 10).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
      this.log.warn({ ...ctx, fields }, `loyalty answer unusable: ${fields.join('; ')}`);
      throw markAnsweredUnreadably(invalidResponse());
    }
    if (answer.status >= 300 && answer.status < 400) {
      this.log.warn(ctx, 'loyalty service answered with a redirect, which is not followed: check LOYALTY_BASE_URL');
      throw invalidResponse();
    }
    const err = fromUpstreamStatus(operation, answer.status, json, parseRetryAfter(answer.retryAfter, (this.options.now ?? Date.now)()));
    const upstream = describeUpstreamError(json, this.keys.secrets());
    if (isProblem(err, 'upstream_auth_failed')) {
      this.log.error({ ...ctx, ...upstream }, 'LOYALTY SERVICE REFUSED OUR KEYS: check LOYALTY_API_KEY and LOYALTY_SECRET_KEY (and High Security Mode)');
    } else {
      this.log.debug({ ...ctx, code: err.code, ...upstream }, 'loyalty service refused the call');
    }
    throw err;
  }
}

/** Why a call got no HTTP answer: the transport's code (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED, ...) and where it tried. */
export interface UnreachedCause {
  code: string;
  host: string;
  port: string;
  message: string;
}
const unreached = new WeakMap<object, UnreachedCause>();
/** The cause of a call's failure when no HTTP answer came (undefined for an answered failure, a refusal by a policy). */
export function unreachedCause(err: unknown): UnreachedCause | undefined {
  return typeof err === 'object' && err !== null ? unreached.get(err) : undefined;
}

/**
 * Errors of a 2xx answer whose body could not be read: the upstream took the
 * write, only what it answered is lost. Kept outside the error object, as
 * `certainlyNotDelivered` is, so it never shows in a response.
 */
const unreadableSuccess = new WeakSet<object>();
function markAnsweredUnreadably<E extends object>(err: E): E {
  unreadableSuccess.add(err);
  return err;
}
export function answeredUnreadably(err: unknown): boolean {
  return typeof err === 'object' && err !== null && unreadableSuccess.has(err);
}

function encodeParam(name: string, value: string | number | undefined): string {
  const s = value === undefined ? '' : String(value);
  // WHATWG URLs resolve "." and ".." segments (even encoded), which would change the operation.
  const wrong = s === '' ? 'is required' : s.length > 200 ? 'must be at most 200 characters' : s === '.' || s === '..' ? 'must not be "." or ".."' : null;
  if (wrong) throw problem('validation_failed', `Invalid ${name}: ${wrong}`, { errors: [{ path: name, message: wrong }] });
  return encodeURIComponent(s);
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** For our logs only: the upstream's code, type, request id and message, with our keys scrubbed. */
function describeUpstreamError(json: unknown, secrets: string[]): Record<string, unknown> {
  if (typeof json !== 'object' || json === null) return {};
  const b = json as Record<string, unknown>;
  const clean = (v: unknown) => {
    if (typeof v !== 'string') return undefined;
    let s = v;
    for (const secret of secrets) s = s.split(secret).join('[redacted]');
    return s.slice(0, 300);
  };
  return {
    upstreamCode: typeof b.code === 'number' ? b.code : undefined,
    upstreamType: clean(b.type),
    upstreamRequestId: clean(b.requestId),
    upstreamMessage: clean(b.message),
  };
}

function outcomeOf(err: unknown): UpstreamOutcome {
  if (isProblem(err, 'upstream_auth_failed')) return 'auth_failed';
  if (isProblem(err, 'upstream_call_aborted')) return 'aborted';
  return upstreamFailureKind(err) ?? 'error';
}
