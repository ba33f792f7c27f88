import { z } from 'zod';
import { Email, Mobile } from '../../contract';
import { CustomerId, Id } from '../fields';
import { queuedAnswer } from '../outbox/schemas';

/** The customer events request and its answers. */

const EventName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'event names are letters, digits and _ . : -');
const MetadataValue = z.union([z.string().max(2000), z.number().finite(), z.boolean(), z.null()]);
export const EventsBody = z.strictObject({
  customerId: CustomerId.describe('The loyalty customer id the events are about'),
  email: Email.optional().describe("The customer's email, when the account merges channels by email"),
  mobile: Mobile.optional().describe("The customer's mobile, when the account merges channels by mobile"),
  events: z
    .record(EventName, z.record(z.string().min(1).max(200), MetadataValue))
    .refine((e) => Object.keys(e).length >= 1 && Object.keys(e).length <= 50, 'give between 1 and 50 events')
    .describe('1 to 50 events, by name (e.g. place_order), each with its metadata (string, number, boolean or null values)'),
  eventId: Id.optional().describe("The till's id of these events: a queued copy carries it in each event's metadata (default the outbox id)"),
});
export type EventsBody = z.infer<typeof EventsBody>;

export const EventsAcceptedSchema = z.strictObject({
  customerId: z.string().describe('The loyalty customer id'),
  accepted: z.array(z.string()).describe('The event names sent on'),
});

export const QueuedEventsSchema = queuedAnswer({
  customerId: z.string().describe('The loyalty customer id'),
  accepted: z.array(z.string()).describe('The event names queued'),
});
