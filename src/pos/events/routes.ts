import { one, route, WRITE_ERRORS } from '../http/route';
import { examples as ex } from '../openapi/examples';
import * as res from '../response-schemas';
import * as req from '../schemas';
import { recordEventsOrQueue } from './operations';

/** Customer events from tills and kiosks. */
export const EVENT_ROUTES = [
  route({
    method: 'post',
    path: '/events',
    operationId: 'recordEvents',
    tag: 'Engagement',
    roles: ['cashier', 'manager', 'kiosk'],
    summary: 'Send customer events (store visit, survey answered, ...)',
    body: { schema: req.EventsBody, examples: one('A store visit', ex.events) },
    success: { status: 200, description: 'Sent on', schema: res.EventsAcceptedSchema, example: ex.eventsAccepted },
    queued: { schema: res.QueuedEventsSchema, example: ex.queuedEvents },
    errors: WRITE_ERRORS,
    handle: (deps, ctx, { body }) => recordEventsOrQueue(deps, ctx, body),
  }),
];
