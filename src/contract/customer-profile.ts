import { z } from 'zod';
import { Channel, ChannelMergingFields, CustomerId, Email, FreeExtra, Mobile } from './common';

const Text = z.string().max(200);

/**
 * `customerAttributes` of `POST /customers`: the published profile fields.
 * Dates stay strings, as published (a birthday has no time of day).
 */
export const CustomerAttributes = z.strictObject({
  displayName: Text.optional(),
  firstName: Text.optional(),
  lastName: Text.optional(),
  email: Email.optional(),
  gender: z.string().max(50).optional(),
  mobile: Mobile.optional(),
  dateOfBirth: z.string().max(50).optional(),
  joinDate: z.string().max(50).optional(),
  country: Text.optional(),
  city: Text.optional(),
  zip: z.string().max(50).optional(),
  preferredLanguage: z.string().max(20).optional(),
  source: Text.optional(),
  utms: z.array(z.unknown()).max(100).optional(),
  devices: z.array(z.unknown()).max(100).optional(),
  paymentMethods: z.array(z.unknown()).max(100).optional(),
  totalSpent: z.number().finite().optional(),
  lastOrderDate: z.string().max(50).optional(),
  totalOrders: z.number().int().nonnegative().optional(),
  avgOrderAmount: z.number().finite().optional(),
  channel: Channel.optional(),
  custom: FreeExtra.optional(),
});
export type CustomerAttributes = z.infer<typeof CustomerAttributes>;

/** `POST /customers`: get-or-create by `customerId`; an existing profile is updated with what is sent. */
export const UpsertCustomerRequest = z.strictObject({
  customerId: CustomerId,
  ...ChannelMergingFields,
  deviceToken: z.string().max(500).optional(),
  osType: z.string().max(50).optional(),
  customerAttributes: CustomerAttributes.optional(),
  referrerCode: z.string().max(200).optional(),
  guest: z.boolean().optional(),
});
export type UpsertCustomerRequest = z.infer<typeof UpsertCustomerRequest>;

/** The published answer: the service's own numeric id of the profile (the same on every call for one customer). */
export const UpsertCustomerResponse = z.object({ gameballId: z.number() });
export type UpsertCustomerResponse = z.infer<typeof UpsertCustomerResponse>;
