import type { RequestHandler, Router } from 'express';
import type { z } from 'zod';
import { problem } from '../../platform/problem';
import type { ProblemCode } from '../../platform/problem-catalogue';
import { parseOrThrow } from '../../platform/validation';
import { requireRole } from '../auth';
import type { CallContext } from '../context';
import type { PosSettings } from '../settings';
import { IDEMPOTENCY_HEADER } from '../idempotency';
import { statusFor } from '../outbox/forward';
import type { TerminalRole } from '../terminals/types';
import { callContext } from './context';
import { answerInTime, type InTimeOptions } from './answer-in-time';
import { Replay, replay } from './replay';
import type { StoredResponse } from '../idempotency/types';

export { POS_API_PREFIX } from '../api-prefix';
import { POS_API_PREFIX } from '../api-prefix';

type Examples = Record<string, { summary: string; value: unknown }>;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type Input<P, Q, B> = { params: Out<P>; query: Out<Q>; body: Out<B> };

/**
 * One cashier route: what the OpenAPI document says of it and what serves it.
 * `mountRoutes` reads the same entry to check the role, the key and the input,
 * and the document is generated from the same entries (src/pos/openapi).
 * `D` is what its handler's use case is given: a route table of a wider `D`
 * (the app's whole set) takes it only when that set has every part it names.
 */
export interface PosRoute<
  D = never,
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  S extends z.ZodType = z.ZodType,
  QS extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: 'get' | 'put' | 'post' | 'delete';
  /** Express form, below /pos/v1. */
  path: string;
  operationId: string;
  tag: 'Customers' | 'Redemptions' | 'Payments' | 'Engagement' | 'Outbox' | 'Store reports';
  summary: string;
  description?: string;
  roles: TerminalRole[];
  /** When a setting widens or narrows `roles` (which then documents the default). */
  rolesFor?: (settings: PosSettings) => TerminalRole[];
  /** A write that creates something the till has no id of its own for: a retry without the key could do it twice. */
  idempotencyKey?: 'required';
  /** Answer 503 at once while Redis is down: the route cannot keep its records without it. */
  needsRedis?: boolean;
  params?: P;
  query?: Q;
  /** Required whenever a route has one (the document says so): a request without it is 400 `validation_failed`. */
  body?: { schema: NonNullable<B>; examples: Examples };
  success: { status: 200 | 201 | 202; description: string; schema: S; example: unknown; location?: boolean };
  /** Other forms of the answer, asked for with `?format=`: the content type and how the answer is written in it (a report's CSV). */
  formats?: Record<string, { contentType: string; write(view: z.output<S>): string; example: string }>;
  /** The 202 answer when the write was queued in the outbox (the upstream was out of reach). */
  queued?: { schema: NonNullable<QS>; example: unknown };
  /** It calls the loyalty service, so it can answer the upstream's failures (src/pos/openapi/codes.ts). */
  callsLoyalty: boolean;
  /** A POST that only reads at the loyalty service (a check, a preview): bounded by the till's deadline like a GET, never answered 202 pending. */
  readsOnly?: true;
  /**
   * The problem codes its own use case can answer. Those of the shared
   * middleware (auth, limits, input, Idempotency-Key, Redis, the loyalty
   * service) follow from the entry's other fields; the document lists both
   * per status, and the test run checks every code seen is listed and every
   * listed code is seen (test/support/problem-codes.ts).
   */
  codes: ProblemCode[];
  /** Its answer is what the schemas say (checked when the entry compiles). A property, so `D` is checked contravariantly. */
  handle: (deps: D, ctx: CallContext, input: Input<P, Q, B>) => Promise<z.output<S> | Out<QS> | Replay>;
}

/**
 * The entry builder of a feature whose use cases are given `D`; it infers each
 * entry's input types from its schemas: `const route = routesGiven<RedemptionDeps>()`.
 */
export function routesGiven<D>() {
  return function route<
    P extends z.ZodObject | undefined = undefined,
    Q extends z.ZodObject | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
    S extends z.ZodType = z.ZodType,
    QS extends z.ZodType | undefined = undefined,
  >(entry: PosRoute<D, P, Q, B, S, QS>): PosRoute<D> {
    return entry as unknown as PosRoute<D>;
  };
}

export const TILL: TerminalRole[] = ['cashier', 'manager'];
export const one = (summary: string, value: unknown): Examples => ({ default: { summary, value } });

const requireKey: RequestHandler = (req, _res, next) => {
  if (req.headers['idempotency-key'] !== undefined) return next();
  next(
    problem(
      'idempotency_key_required',
      `${IDEMPOTENCY_HEADER} is required here: a retry without it could do this twice. Send a new key per request, the same key on its retries`,
    ),
  );
};

/** Mounts each entry in order (so a literal path listed first wins over a parameter). */
export function mountRoutes<D extends { settings: PosSettings }>(
  router: Router,
  deps: D,
  routes: readonly PosRoute<D>[],
  opts: { requireRedis?: RequestHandler; inTime?: InTimeOptions } = {},
): void {
  for (const r of routes) {
    const guards: RequestHandler[] = [requireRole(...(r.rolesFor?.(deps.settings) ?? r.roles))];
    if (r.idempotencyKey === 'required') guards.push(requireKey);
    if (r.needsRedis && opts.requireRedis) guards.unshift(opts.requireRedis);
    router[r.method](r.path, ...guards, async (req, res) => {
      const input = {
        params: r.params ? parseOrThrow(r.params, req.params, 'path') : undefined,
        query: r.query ? parseOrThrow(r.query, req.query, 'query') : undefined,
        body: r.body ? parseOrThrow(r.body.schema, req.body) : undefined,
      };
      const ctx = callContext(req, res);
      const write = (view: unknown) => {
        if (view instanceof Replay) return replay(res, view);
        res.status(statusOf(view));
        const form = r.formats?.[String((input.query as { format?: unknown } | undefined)?.format)];
        if (form) return void res.type(form.contentType).send(form.write(view));
        if (r.success.location) res.location(locationOf(view));
        res.json(view);
      };
      const statusOf = (view: unknown) => (r.queued ? statusFor(view, r.success.status) : r.success.status);
      const locationOf = (view: unknown) => `${POS_API_PREFIX}${r.path}/${(view as { id: string }).id}`;
      // What `write` sends, kept for the read-back when the till stopped waiting first (writes have no other formats).
      const late = (view: unknown): StoredResponse => ({
        status: statusOf(view),
        contentType: 'application/json; charset=utf-8',
        ...(r.success.location ? { location: locationOf(view) } : {}),
        body: JSON.stringify(view),
      });
      const handle = () => r.handle(deps, ctx, input);
      // Only a route that calls the loyalty service is raced: a local one finishes (a 503 "nothing was done" would be false).
      if (ctx.till && opts.inTime && r.callsLoyalty) return answerInTime(req, res, ctx.till, handle, write, late, opts.inTime);
      write(await handle());
    });
  }
}
