import { OUTBOX_ID } from '../outbox/examples';

/** Examples of the events route: customer `alice` visits a store. */
export const eventExamples = {
  events: { customerId: 'alice', events: { store_visit: { storeFloor: 1, section: 'coffee' } } },
  eventsAccepted: { customerId: 'alice', accepted: ['store_visit'] },
  queuedEvents: {
    queued: true,
    outboxId: OUTBOX_ID,
    state: 'queued',
    kind: 'events',
    reason: 'upstream_circuit_open',
    customerId: 'alice',
    accepted: ['store_visit'],
  },
} as const;
