import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CouponTarget, Email, LimitBucket, Mobile, PUBLISHED_LIMITS } from '../contract';

/**
 * One sandbox account: its keys and every dashboard setting the v4.0 service
 * lets an account choose. Read from config/sandbox-accounts.json at start-up
 * and changed through `PUT /_sandbox/accounts/:apikey` (a partial object, merged).
 */

const Key = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');
const Points = z.number().int().nonnegative();
const Rate = z.number().finite().nonnegative();
const Id = z.string().min(1).max(200);

export const TierSettings = z.strictObject({
  order: z.number().int().nonnegative(),
  name: z.string().min(1).max(100),
  /** Translated names by language code; `name` is the default. */
  names: z.record(z.string().min(2).max(10), z.string().min(1).max(100)).default({}),
  minProgress: z.number().finite().nonnegative(),
  icon: z.string().max(500).default(''),
  /** Points per currency unit for customers in this tier (the highest rate applies). */
  earnRate: Rate.optional(),
});
export type TierSettings = z.infer<typeof TierSettings>;

export const MultiplierSettings = z
  .strictObject({
    category: z.string().min(1).max(200).optional(),
    tag: z.string().min(1).max(200).optional(),
    pointsPerUnit: Rate,
  })
  .refine((m) => (m.category === undefined) !== (m.tag === undefined), 'a multiplier names exactly one of category or tag');
export type MultiplierSettings = z.infer<typeof MultiplierSettings>;

export const RedemptionRuleSettings = z.strictObject({
  id: Id,
  type: z.enum(['fixed_discount', 'percentage_discount', 'free_shipping', 'free_product']),
  name: z.string().max(200).optional(),
  pointsCost: z.number().int().positive(),
  /** Money for fixed_discount, percent for percentage_discount. */
  value: z.number().finite().nonnegative().optional(),
  productId: z.string().max(200).optional(),
});
export type RedemptionRuleSettings = z.infer<typeof RedemptionRuleSettings>;

export const CouponSettings = z.strictObject({
  code: z.string().min(1).max(100),
  name: z.string().min(1).max(200),
  value: z.number().finite().nonnegative(),
  /** How `value` applies: money off (fixed), percent off (percentage), or a non-money reward. */
  type: z.enum(['shipping', 'fixed', 'percentage', 'product']).default('fixed'),
  /** Most a percentage coupon takes off; absent = no cap. */
  capping: z.number().finite().positive().optional(),
  /** Basket total below which the coupon is refused; absent = any. */
  minOrderValue: z.number().finite().nonnegative().optional(),
  /** Where the coupon can be used (published list field `target`). */
  target: CouponTarget.default('POS'),
  currency: z.string().min(1).max(10).optional(),
  startDate: z.iso.datetime({ offset: true }),
  expiryDate: z.iso.datetime({ offset: true }),
  isActive: z.boolean().default(true),
  /** Uses by all customers; 0 = no limit. */
  usageLimit: z.number().int().nonnegative().default(0),
  /** Uses per customer; 0 = no limit. */
  limitPerCustomer: z.number().int().nonnegative().default(0),
  iconPath: z.string().max(500).default(''),
  /** Who is offered it: customers in one of `tiers` (tier orders) or named in `customerIds`; absent = everyone. */
  audience: z
    .strictObject({
      tiers: z.array(z.number().int().nonnegative()).max(50).optional(),
      customerIds: z.array(z.string().min(1).max(200)).max(10_000).optional(),
    })
    .optional(),
});
export type CouponSettings = z.infer<typeof CouponSettings>;

export const SeedCustomer = z.strictObject({
  customerId: z.string().trim().min(1).max(200),
  points: Points,
  email: Email.optional(),
  mobile: Mobile.optional(),
});
export type SeedCustomer = z.infer<typeof SeedCustomer>;

const LIMIT_BUCKETS = Object.keys(PUBLISHED_LIMITS) as LimitBucket[];

/** One bucket's own figures; a figure left out stays the published one times the multiplier. */
export const BucketLimitSettings = z.strictObject({
  rate: z.number().int().min(1).max(1_000_000).optional(),
  quota: z.number().int().min(1).max(30_000_000).optional(),
});

/**
 * The published limits (src/contract/rate-limits.ts) as this account lives
 * them: on at the published figures unless raised, lowered or switched off.
 */
export const RateLimitSettings = z.strictObject({
  /** false: no limit at all (tests and load runs that are not about limits). */
  enforced: z.boolean().default(true),
  /** Every published rate and quota times this (rounded down, at least 1). */
  multiplier: z.number().finite().positive().max(10_000).default(1),
  /** Per bucket (e.g. transactionsWrite): figures that replace the multiplied published ones. */
  buckets: z
    .strictObject(
      Object.fromEntries(LIMIT_BUCKETS.map((b) => [b, BucketLimitSettings.optional()])) as Record<LimitBucket, z.ZodOptional<typeof BucketLimitSettings>>,
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `unknown bucket ${issue.keys.map((k) => `"${k}"`).join(', ')}; use one of: ${LIMIT_BUCKETS.join(', ')}`
            : undefined,
      },
    )
    .default({}),
});
export type RateLimitSettings = z.output<typeof RateLimitSettings>;

export const AccountSettings = z
  .strictObject({
    name: z.string().min(1).max(200),
    apiKey: Key,
    secretKey: Key,
    currency: z.string().min(1).max(10).default('EGP'),
    pointsName: z.string().min(1).max(50).default('Points'),
    otpEnabled: z.boolean().default(false),
    highSecurityMode: z.boolean().default(false),
    channelMerging: z.enum(['none', 'email', 'mobile']).default('none'),
    /** Spec, Limits: 1 minute to 15 days, default 10 minutes. */
    holdPeriodMinutes: z
      .number()
      .int()
      .min(1)
      .max(15 * 24 * 60)
      .default(10),
    earn: z.strictObject({ pointsPerUnit: Rate, minimumSpend: z.number().finite().nonnegative().default(0) }).default({ pointsPerUnit: 1, minimumSpend: 0 }),
    /** Money value of one point. */
    redemptionFactor: z.number().finite().positive().default(0.1),
    tiers: z.array(TierSettings).max(50).default([]),
    tierProgressMethod: z.enum(['amountSpent', 'pointsEarned', 'orders', 'referrals', 'score']).default('amountSpent'),
    multipliers: z.array(MultiplierSettings).max(500).default([]),
    redemptionRules: z.array(RedemptionRuleSettings).max(500).default([]),
    coupons: z.array(CouponSettings).max(500).default([]),
    /** Points a new profile gets once, however it is created (the sandbox's onboarding campaign; 0: none). */
    welcomeBonusPoints: Points.default(0),
    /** Points granted per event name by `POST /events`. */
    eventRewards: z.record(z.string().min(1).max(200), Points).default({}),
    otpTtlSeconds: z.number().int().min(10).max(86_400).default(300),
    /** Customers present at start and after every `POST /_sandbox/reset`. */
    seedCustomers: z.array(SeedCustomer).max(10_000).default([]),
    /** The published per-second rates and 30-s quotas, enforced per account and bucket. */
    rateLimits: RateLimitSettings.default({ enforced: true, multiplier: 1, buckets: {} }),
  })
  .superRefine((a, ctx) => {
    const dup = <T>(items: T[], key: (t: T) => string | number, path: string) => {
      const seen = new Set<string | number>();
      items.forEach((item, i) => {
        const k = key(item);
        if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [path, i], message: `duplicate ${path} entry "${k}"` });
        seen.add(k);
      });
    };
    dup(a.tiers, (t) => t.order, 'tiers');
    dup(a.redemptionRules, (r) => r.id, 'redemptionRules');
    dup(a.coupons, (c) => c.code, 'coupons');
    dup(a.seedCustomers, (c) => c.customerId, 'seedCustomers');
    if (a.apiKey === a.secretKey) ctx.addIssue({ code: 'custom', path: ['secretKey'], message: 'must differ from apiKey' });
  });
/** Settings as written (defaults optional). */
export type AccountSettingsInput = z.input<typeof AccountSettings>;
/** Settings after defaults. */
export type AccountSettings = z.output<typeof AccountSettings>;

/** What `GET /_sandbox/accounts/:apikey` shows (and PUT accepts whole or in part): the settings without the secret key. */
export type PublicAccountSettings = Omit<AccountSettings, 'secretKey'>;

export const AccountsFile = z
  .array(AccountSettings)
  .min(1, 'at least one account is required')
  .superRefine((accounts, ctx) => {
    const keys = new Set<string>();
    accounts.forEach((a, i) => {
      if (keys.has(a.apiKey)) ctx.addIssue({ code: 'custom', path: [i, 'apiKey'], message: `duplicate apiKey "${a.apiKey}"` });
      keys.add(a.apiKey);
    });
  });

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/** Validates a list of accounts, naming the bad field when one is wrong. */
export function parseAccounts(input: unknown, source = 'accounts'): AccountSettings[] {
  // Accept either a bare array or `{ accounts: [...] }`.
  const list = input && typeof input === 'object' && !Array.isArray(input) && 'accounts' in input ? (input as { accounts: unknown }).accounts : input;
  const result = AccountsFile.safeParse(list);
  if (!result.success) throw new Error(`Invalid sandbox accounts in ${source}: ${describe(result.error)}`);
  return result.data;
}

/** Reads and validates the accounts file (config/sandbox-accounts.json). */
export function loadSandboxAccounts(file: string): AccountSettings[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`Cannot read sandbox accounts file ${file}: ${(err as Error).message}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`Sandbox accounts file ${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  return parseAccounts(json, file);
}

export function publicSettings(account: AccountSettings): PublicAccountSettings {
  const { secretKey: _secret, ...rest } = account;
  return structuredClone(rest);
}
