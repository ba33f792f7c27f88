import { z } from 'zod';
import { ChannelMergingFields, CustomerId } from './common';

/** Any JSON object per event name, nested objects included (published: `additionalProperties: true`). */
export const EventMetadata = z.record(z.string().min(1).max(200), z.unknown());

export const EventRequest = z.strictObject({
  customerId: CustomerId,
  ...ChannelMergingFields,
  events: z
    .record(
      z
        .string()
        .min(1)
        .max(200)
        .regex(/^[A-Za-z0-9_.:-]+$/, 'event names are letters, digits and _ . : -'),
      EventMetadata,
    )
    .refine((e) => Object.keys(e).length > 0, 'at least one event is required')
    .refine((e) => Object.keys(e).length <= 50, 'at most 50 events per request'),
});
export type EventRequest = z.infer<typeof EventRequest>;

export const EventResponse = z.object({ success: z.boolean(), message: z.string() });
export type EventResponse = z.infer<typeof EventResponse>;
