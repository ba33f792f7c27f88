import { z } from 'zod';

/** ISO 8601 date-time, with `Z` or an explicit offset. */
export const DateTime = z.iso.datetime({ offset: true });

export const CustomerId = z.string().trim().min(1).max(200);
export const Email = z.email().max(320);
export const Mobile = z.string().regex(/^\+?[0-9 ()-]{4,32}$/, 'must be a phone number');

/** The fields every customer-scoped request may carry for channel merging. */
export const ChannelMergingFields = {
  email: Email.optional(),
  mobile: Mobile.optional(),
};

/** Money in the system currency. */
export const Money = z.number().finite();
export const NonNegativeMoney = Money.nonnegative();

/** `extra` objects: values must be string or number (spec, Limits). */
export const Extra = z.record(z.string().max(200), z.union([z.string().max(2000), z.number().finite()]));

/** `extra` where the spec sets no rule (orders, refund lines): any JSON values, as published. */
export const FreeExtra = z.record(z.string().max(200), z.unknown());

export const Channel = z.enum(['mobile', 'pos', 'web', 'callcenter']);

export const Branch = z.strictObject({
  uniqueId: z.string().min(1).max(200),
  name: z.string().max(200).optional(),
});

export const Merchant = z.strictObject({
  uniqueId: z.string().min(1).max(200).optional(),
  name: z.string().max(200).optional(),
  /** `branch.uniqueId` is required whenever a branch is given. */
  branch: Branch.optional(),
});
export type Merchant = z.infer<typeof Merchant>;

/** A plain `{ success, message }` acknowledgement. */
export const Acknowledgement = z.object({ success: z.boolean(), message: z.string() });
export type Acknowledgement = z.infer<typeof Acknowledgement>;
