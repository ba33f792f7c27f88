import type { EventRequest } from '../../contract';
import { problem } from '../../platform/problem';
import type { LoyaltyCallContext } from '../../upstream';
import type { CallContext, SharedDeps } from '../context';
import { QueuedView, sendOrQueue, type OutboxDeps } from '../outbox/forward';
import type { PosSettings } from '../settings';
import type { EventsBody } from './schemas';
import { storePolicy } from '../terminals/policy';
import { audited, type AuditDeps } from '../audit/record';

/** What sending customer events uses. */
export type EventDeps = Pick<SharedDeps, 'loyalty'> & OutboxDeps & AuditDeps & { settings: Pick<PosSettings, 'kioskEvents'> };

const toUpstreamEvents = (body: EventsBody): EventRequest => ({ customerId: body.customerId, email: body.email, mobile: body.mobile, events: body.events });

export async function recordEvents(deps: EventDeps, ctx: CallContext, body: EventsBody, call: LoyaltyCallContext = { requestId: ctx.requestId }) {
  await deps.loyalty.events(toUpstreamEvents(body), call);
  return { customerId: body.customerId, accepted: Object.keys(body.events) };
}

export type QueuedEvents = QueuedView & { customerId: string; accepted: string[] };

/**
 * A kiosk stands where customers can reach it, so it may only send the events
 * its store allows (the store's `kioskEvents` in the terminals file, else
 * KIOSK_EVENTS): an event that earns points (`place_order`) stays with the tills.
 */
function requireKioskEvents(deps: EventDeps, ctx: CallContext, body: EventsBody): void {
  if (ctx.identity.terminal.role !== 'kiosk') return;
  const allowed = storePolicy(ctx.identity.store, { kioskEvents: deps.settings.kioskEvents }).kioskEvents;
  const refused = Object.keys(body.events).filter((name) => !allowed.includes(name));
  if (refused.length) {
    throw problem('event_not_allowed', `A kiosk of this store may not send ${refused.join(', ')}`, {
      errors: refused.map((name) => ({ path: `events.${name}`, message: 'not an event this store allows from a kiosk' })),
    });
  }
}

/**
 * Events, queued only when they certainly never left (an open circuit, a 429,
 * a refused connection). The upstream has no id for events, so a copy sent
 * after a send that may have landed would be recorded twice: such events are
 * answered `event_maybe_recorded` instead, and the outbox dead-letters a
 * delivery of them that may have landed (src/pos/outbox/forward.ts
 * RESENDABLE). Each queued event still carries a stable `eventId` in its
 * metadata (the till's `eventId`, else the outbox id) for what reads them.
 */
export async function recordEventsOrQueue(
  deps: EventDeps,
  ctx: CallContext,
  body: EventsBody,
): Promise<Awaited<ReturnType<typeof recordEvents>> | QueuedEvents> {
  requireKioskEvents(deps, ctx, body);
  const request = toUpstreamEvents(body);
  return sendOrQueue(
    deps,
    ctx,
    { kind: 'events', request },
    { customerId: body.customerId, accepted: Object.keys(body.events) },
    (call) => recordEvents(deps, ctx, body, call),
    {
      prepare: (_work, outboxId) => ({
        kind: 'events',
        request: {
          ...request,
          events: Object.fromEntries(Object.entries(request.events).map(([name, meta]) => [name, { ...meta, eventId: body.eventId ?? outboxId }])),
        },
      }),
    },
  );
}

/** The events use case, audited as `events`. */
export function sendEvents(deps: EventDeps, ctx: CallContext, body: EventsBody) {
  return audited(deps, ctx, 'events', { customerId: body.customerId, names: Object.keys(body.events) }, (c) => recordEventsOrQueue(deps, c, body));
}
