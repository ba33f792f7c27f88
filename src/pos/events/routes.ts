import { one, routesGiven } from '../http/route';
import { eventExamples } from './examples';
import { sendEvents } from './operations';
import { EventsAcceptedSchema, EventsBody, QueuedEventsSchema } from './schemas';

import type { EventDeps } from './operations';

const route = routesGiven<EventDeps>();

/** Customer events from tills and kiosks. */
export const EVENT_ROUTES = [
  route({
    method: 'post',
    path: '/events',
    operationId: 'recordEvents',
    tag: 'Engagement',
    roles: ['cashier', 'manager', 'kiosk'],
    summary: 'Send customer events (store visit, survey answered, ...)',
    description:
      'Events carry no id the loyalty service could refuse a copy by. They are queued (202) only when they certainly never reached it ' +
      "(its circuit open, its limit used up, the connection refused, or behind this customer's queued writes). After a timeout, a 5xx " +
      'or an answer that cannot be read they may have been recorded: 503 `event_maybe_recorded`, final; do not send them again.',
    body: { schema: EventsBody, examples: one('A store visit', eventExamples.events) },
    success: { status: 200, description: 'Sent on', schema: EventsAcceptedSchema, example: eventExamples.eventsAccepted },
    queued: { schema: QueuedEventsSchema, example: eventExamples.queuedEvents },
    callsLoyalty: true,
    codes: ['event_not_allowed', 'channel_field_required', 'event_maybe_recorded'],
    handle: (deps, ctx, { body }) => sendEvents(deps, ctx, body),
  }),
];
