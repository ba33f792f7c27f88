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
  customerId: CustomerId,
  email: Email.optional(),
  mobile: Mobile.optional(),
  events: z
    .record(EventName, z.record(z.string().min(1).max(200), MetadataValue))
    .refine((e) => Object.keys(e).length >= 1 && Object.keys(e).length <= 50, 'give between 1 and 50 events'),
  eventId: Id.optional(),
});
export type EventsBody = z.infer<typeof EventsBody>;

export const EventsAcceptedSchema = z.strictObject({ customerId: z.string(), accepted: z.array(z.string()).describe('The event names sent on') });

export const QueuedEventsSchema = queuedAnswer({ customerId: z.string(), accepted: z.array(z.string()) });
