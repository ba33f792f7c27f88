import { z } from 'zod';
import { SERVED_OPERATIONS } from '../../contract';
import { AppError, ConflictError, NotAllowedError, ServiceUnavailableError, UpstreamError, UpstreamTimeoutError } from '../../platform/errors';
import { describeIssues, fieldErrors } from '../../platform/validation';
import type { SandboxContext } from '../context';
import { loyaltyErrors } from '../errors';
import type { FaultRule, StoredFaultRule } from '../state/faults';

/** Statuses a rule may inject: the ones a v4.0 caller must be ready for. */
export const INJECTABLE_STATUSES = [400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504] as const;

const operationIds = Object.keys(SERVED_OPERATIONS);

const FaultRuleInput = z
  .strictObject({
    operation: z.string().refine((v) => v === '*' || operationIds.includes(v), {
      error: (issue) => `unknown operation "${String(issue.input)}"; use "*" or one of: ${operationIds.join(', ')}`,
    }),
    latencyMs: z.number().int().min(0).max(60_000).optional(),
    status: z
      .number()
      .int()
      .refine((s) => (INJECTABLE_STATUSES as readonly number[]).includes(s), { error: `status must be one of ${INJECTABLE_STATUSES.join(', ')}` })
      .optional(),
    probability: z.number().min(0).max(1).default(1),
    drop: z.boolean().default(false),
    after: z.boolean().default(false).describe('Run the operation first (its write is applied), then answer late, never (drop), or with the status instead'),
    brokenBody: z.boolean().default(false).describe('After the operation: its own status with a body cut short, not JSON'),
    times: z.number().int().min(1).max(1_000_000).optional(),
  })
  .refine((r) => r.latencyMs !== undefined || r.status !== undefined || r.drop || r.brokenBody, {
    error: 'a rule must do something: latencyMs, status, drop or brokenBody',
  })
  .refine((r) => !(r.brokenBody && (r.drop || r.status !== undefined)), { error: 'a broken body is the answer itself: not with drop or status' })
  .refine((r) => !(r.drop && r.status !== undefined), { error: 'a rule either drops the connection or answers with a status, not both' });

export const FaultRulesInput = z.strictObject({ rules: z.array(FaultRuleInput).max(100) });

export interface FaultsView {
  rules: (FaultRule & { applied: number; remaining?: number })[];
}

function shown(rules: readonly StoredFaultRule[]): FaultsView {
  return { rules: rules.map((r) => ({ ...r, ...(r.times !== undefined ? { remaining: Math.max(0, r.times - r.applied) } : {}) })) };
}

/** `PUT /_sandbox/faults`: replaces every rule; bad rules are a 400 naming the field. */
export function replaceFaults(ctx: SandboxContext, body: unknown): FaultsView {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw loyaltyErrors.invalidPayload('The request body must be a JSON object: { "rules": [...] }');
  const parsed = FaultRulesInput.safeParse(body);
  if (!parsed.success) throw loyaltyErrors.invalidPayload(`Invalid fault rules: ${describeIssues(fieldErrors(parsed.error))}`);
  ctx.faults.replace(parsed.data.rules);
  return shown(ctx.faults.list());
}

export function readFaults(ctx: SandboxContext): FaultsView {
  return shown(ctx.faults.list());
}

export function clearFaults(ctx: SandboxContext): FaultsView {
  ctx.faults.clear();
  return shown(ctx.faults.list());
}

/**
 * What to do to one call: wait, then drop the connection or answer with an
 * error (or carry on). `after`: the operation runs first and all of that acts
 * on its answer instead (applied, then answered late, never, with the error,
 * or with a broken body).
 */
export interface FaultDecision {
  latencyMs: number;
  drop: boolean;
  after: boolean;
  brokenBody: boolean;
  error?: AppError;
}

/**
 * The rules that fire for one call of `operationId`: each matching rule with
 * uses left fires with its probability and counts against `times`. Their
 * latencies add up; the first drop, status or broken body among them decides
 * the outcome; any rule with `after` lets the operation run first.
 */
export function faultFor(ctx: SandboxContext, operationId: string): FaultDecision | undefined {
  let fired = false;
  const decision: FaultDecision = { latencyMs: 0, drop: false, after: false, brokenBody: false };
  for (const rule of ctx.faults.list()) {
    if (rule.operation !== '*' && rule.operation !== operationId) continue;
    if (rule.times !== undefined && rule.applied >= rule.times) continue;
    if (rule.probability < 1 && Math.random() >= rule.probability) continue;
    rule.applied += 1;
    fired = true;
    decision.latencyMs += rule.latencyMs ?? 0;
    decision.after ||= rule.after || rule.brokenBody;
    if (decision.drop || decision.error || decision.brokenBody) continue;
    if (rule.drop) decision.drop = true;
    else if (rule.brokenBody) decision.brokenBody = true;
    else if (rule.status !== undefined) decision.error = injectedError(rule.status);
  }
  return fired ? decision : undefined;
}

/** The error a real v4.0 service would answer with that status, in the sandbox's error family. */
export function injectedError(status: number): AppError {
  // Without the operation's name: the BFF reads a 3003's words (otp, hash, rule,
  // refund, coupon) to tell its cause, and an injected fault has none.
  const why = '(injected by a sandbox fault)';
  switch (status) {
    case 400:
      return loyaltyErrors.invalidPayload(`Invalid payload ${why}`);
    case 401:
      return loyaltyErrors.apiKeyInvalid(`The apikey header is not valid ${why}`);
    case 403:
      return new NotAllowedError('Forbidden', `Forbidden ${why}`);
    case 404:
      return loyaltyErrors.notFound(`Not found ${why}`);
    case 409:
      return new ConflictError('Conflict', `Conflict ${why}`);
    case 422:
      return loyaltyErrors.invalidValue(`Invalid value ${why}`, 'InvalidValue');
    case 429:
      return loyaltyErrors.rateLimited(`Too many requests ${why}`, 1);
    case 502:
      return new UpstreamError('BadGateway', `Bad gateway ${why}`);
    case 503:
      return new ServiceUnavailableError('ServiceUnavailable', `Service unavailable ${why}`);
    case 504:
      return new UpstreamTimeoutError('GatewayTimeout', `Gateway timeout ${why}`);
    default:
      return loyaltyErrors.internal(`Internal error ${why}`);
  }
}
