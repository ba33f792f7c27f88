import { z } from 'zod';
import { upstreamTime } from './date-time';

/**
 * The pieces every tolerant answer reader is built from (./answers.ts,
 * ./coupon-answers.ts): numbers that may come as numeric strings, `null` read
 * as absent, date-times read as UTC when they have no offset, and the figures
 * of a write that never fail the parse once the write happened.
 */

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A number, or a string holding one. */
export const Num = z.union([z.number(), z.string().trim().regex(NUMERIC, 'not a number').transform(Number)]).pipe(z.number().finite());

/** Absent or `null` reads as undefined. */
export const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

/** A figure of a write: unreadable is the same as absent. */
export const figure = <T extends z.ZodType>(schema: T) => optional(schema).catch(undefined);

/** Text the BFF passes on; a number is accepted as its decimal form. */
export const Text = z.union([z.string(), z.number().finite().transform(String)]);
export const NonEmptyText = Text.pipe(z.string().trim().min(1));

/** An ISO 8601 date-time as epoch milliseconds (UTC when it has no offset). */
export const DateTimeMs = z.string().transform((s, ctx) => {
  const ms = upstreamTime(s);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'not a date-time' });
    return z.NEVER;
  }
  return ms;
});

/** An item count: a whole number, zero or more. */
export const Count = Num.pipe(z.number().int().nonnegative());

/** A body the BFF reads nothing from: anything goes, an empty body too. */
export const Anything = z.unknown().transform(() => ({}) as Record<string, never>);

/** A write's body: a non-object (empty body, `true`) reads as `{}`, since the write happened either way. */
export const writeBody = <T extends z.ZodRawShape>(shape: T) =>
  z
    .unknown()
    .transform((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}))
    .pipe(z.object(shape));

/** A list whose items are read one by one: an unreadable item is left out instead of failing the whole answer. */
export const readableItems = <T extends z.ZodType>(item: T) =>
  optional(z.array(z.unknown())).transform((list) =>
    (list ?? []).flatMap((v) => {
      const r = item.safeParse(v);
      return r.success ? [r.data as z.output<T>] : [];
    }),
  );
