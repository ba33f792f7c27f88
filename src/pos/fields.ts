import { z } from 'zod';
import { CustomerId as ContractCustomerId } from '../contract';

/**
 * Field shapes the requests of several features share; each feature's own
 * request and answer shapes are in its schemas.ts. Requests are strict: an
 * unknown field is an error, so a till's typo is caught on day one.
 */
/** No till sale is a billion; a bigger number is a bug upstream of us, not a sale to earn points on. */
const MAX_MONEY = 1_000_000_000;
/**
 * The smallest currency unit any currency has (ISO 4217 minor units go to three
 * decimals): an amount finer than that is no amount a till can take, and 1e-7
 * would otherwise hold a point for 0.00.
 */
export const MONEY_UNIT = 0.001;
const wholeUnits = (v: number) => Math.abs(v / MONEY_UNIT - Math.round(v / MONEY_UNIT)) < 1e-6;
export const Money = z
  .number()
  .finite()
  .nonnegative()
  .max(MAX_MONEY)
  .refine(wholeUnits, `must be a whole number of ${MONEY_UNIT} (no currency has a smaller unit)`);
export const PositiveMoney = z
  .number()
  .finite()
  .min(MONEY_UNIT, `must be at least ${MONEY_UNIT}, the smallest currency unit`)
  .max(MAX_MONEY)
  .refine(wholeUnits, `must be a whole number of ${MONEY_UNIT} (no currency has a smaller unit)`);
/**
 * No control or invisible format characters (NUL, newlines, C1, soft hyphen,
 * zero-width and bidi controls, BOM): ids end up in logs, keys and the upstream.
 * Spelled out rather than \p{Cc}\p{Cf}, so the OpenAPI pattern works without the u flag.
 */
export const PRINTABLE = /^[^\x00-\x1F\x7F-\x9F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB]*$/;
export const NO_CONTROL = 'must not contain control characters';
export const Id = z.string().trim().min(1).max(200).regex(PRINTABLE, NO_CONTROL);
export const CustomerId = ContractCustomerId.regex(PRINTABLE, NO_CONTROL);

/**
 * A field a variant of an "exactly one of" body must not have: documented as
 * matching nothing (`not: {}`), which the client types make `never`, so a till
 * sending two of the choices does not compile.
 */
export const absent = (instead: string) =>
  z
    .never()
    .optional()
    .meta({ type: 'null', not: {}, description: `Not with ${instead}` } as never);

/**
 * A body documented as its exclusive variants (`variants`, each a strict
 * object), but checked first by `checked`, whose messages name the fields
 * (a union's own error would only say no variant matched).
 */
export function exclusive<T extends z.ZodType>(checked: T, variants: readonly z.ZodObject[]): z.ZodType<z.output<T>, z.input<T>> {
  return z.preprocess((input, ctx) => {
    const result = checked.safeParse(input);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue({ ...issue, input: undefined } as never);
    return input;
  }, z.union(variants)) as unknown as z.ZodType<z.output<T>, z.input<T>>;
}
