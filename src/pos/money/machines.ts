/**
 * The state machines of the money path, declared as transition tables. Every
 * store checks a proposed change against its table inside its compare-and-set
 * (memory and Redis alike), so no call site can move a record where the table
 * does not allow. A claim is a state of its own (`paying`, `voiding`,
 * `releasing`, `recording`): whoever writes it first owns the upstream call.
 * Staying in the same state (a field changing) is always allowed; a final
 * state has no way out. Beside each machine its named transitions (below) are
 * what call sites apply. docs/STATES.md is generated from these tables.
 */
export type Machine<S extends string> = { readonly [K in S]: readonly S[] };

export type RedemptionState =
  | 'otp_required'
  | 'confirming'
  | 'held'
  | 'paying'
  | 'voiding'
  | 'redeemed'
  | 'voided'
  | 'expired'
  | 'stand_in_approval'
  | 'stand_in'
  | 'stand_in_paid'
  | 'short';

export const REDEMPTION_MACHINE: Machine<RedemptionState> = {
  // The customer's code is checked by placing the hold (`confirming`); an OTP record is otherwise forgotten by its TTL.
  otp_required: ['confirming'],
  // The hold placed, the code refused (try again), or an unknown outcome given up on (a hold placed then lapses by itself).
  confirming: ['held', 'otp_required', 'expired'],
  held: ['paying', 'voiding', 'expired'],
  // The payment's outcome: applied, refused (the claim is freed), or the hold ended upstream unused.
  paying: ['redeemed', 'held', 'expired'],
  // The release's outcome: applied, refused, or what the hold's record says (ended, or used by a payment).
  voiding: ['voided', 'held', 'expired', 'redeemed'],
  // Stand-in (no hold: the loyalty service was out): paid (its redeem and sale queued together), voided before, or lapsed unpaid.
  stand_in: ['stand_in_paid', 'voided', 'expired'],
  // Over the floor limits: waiting for a manager's approval (STAND_IN_APPROVAL_MINUTES), then a stand-in; or lapsed, or voided.
  stand_in_approval: ['stand_in', 'expired', 'voided'],
  // Its redeem settled once later: the points redeemed, or refused for the balance (the sale still recorded); freed if nothing was queued.
  stand_in_paid: ['redeemed', 'short', 'stand_in'],
  redeemed: [],
  voided: [],
  expired: [],
  short: [],
};

export type CouponLockState = 'locked' | 'paying' | 'releasing' | 'used' | 'released' | 'abandoned';

export const COUPON_LOCK_MACHINE: Machine<CouponLockState> = {
  locked: ['paying', 'releasing', 'abandoned'],
  // Burned by the payment, freed by its refusal, or found unburned once the upstream lock ended.
  paying: ['used', 'locked', 'abandoned'],
  // Released by the till, freed by a refusal, or abandoned by the sweeper, which releases it too.
  releasing: ['released', 'locked', 'abandoned'],
  used: [],
  released: [],
  abandoned: [],
};

/**
 * A sale or refund id as this BFF knows it. It is claimed (`recording`) while
 * its write is in flight or queued; a refusal deletes the claim, so nothing is
 * left that blocks or reveals the id. It belongs to a store once `recorded`.
 */
export type SaleState = 'recording' | 'recorded' | 'voiding' | 'voided';

export const SALE_MACHINE: Machine<SaleState> = {
  recording: ['recorded'],
  recorded: ['voiding'],
  voiding: ['voided', 'recorded'],
  voided: [],
};

/**
 * A named transition (after Vendure's declared payment process): the states it
 * may leave, the state it enters, and the fields it writes besides the state,
 * `sets` taken from the caller's arguments, `clears` removed. A store applies
 * it inside its compare-and-set (`apply`), so a call site names what happens
 * instead of building the next record by hand.
 */
export interface Transition<S extends string> {
  readonly from: readonly S[];
  readonly to: S;
  readonly sets?: readonly string[];
  readonly clears?: readonly string[];
}

export const REDEMPTION_TRANSITIONS = {
  // The OTP step: the code checked by placing the hold.
  confirm: { from: ['otp_required'], to: 'confirming' },
  confirmed: { from: ['confirming'], to: 'held', sets: ['holdReference', 'holdAmount', 'holdPoints', 'expiresAt'], clears: ['hash'] },
  otpRefused: { from: ['confirming'], to: 'otp_required' },
  confirmGivenUp: { from: ['confirming'], to: 'expired' },
  pay: { from: ['held'], to: 'paying', sets: ['paymentId'] },
  payApplied: { from: ['paying', 'redeemed'], to: 'redeemed' },
  payRefused: { from: ['paying'], to: 'held', clears: ['paymentId'] },
  void: { from: ['held'], to: 'voiding' },
  voidApplied: { from: ['voiding'], to: 'voided' },
  voidRefused: { from: ['voiding'], to: 'held' },
  // What the hold's own record upstream says became of a claimed hold.
  holdUsed: { from: ['paying', 'voiding'], to: 'redeemed' },
  holdEnded: { from: ['held', 'paying'], to: 'expired', clears: ['paymentId'] },
  holdReleased: { from: ['voiding'], to: 'voided', clears: ['paymentId'] },
  // Stand-in: the payment naming it queued with its redeem; the redeem's outcome once delivered; a void before payment.
  standInPay: { from: ['stand_in'], to: 'stand_in_paid', sets: ['paymentId'] },
  // Nothing was queued (the sale id refused): the stand-in may be paid by another payment.
  standInPayFreed: { from: ['stand_in_paid'], to: 'stand_in', clears: ['paymentId'] },
  standInRedeemed: { from: ['stand_in_paid', 'redeemed'], to: 'redeemed' },
  standInShort: { from: ['stand_in_paid', 'short'], to: 'short' },
  standInVoid: { from: ['stand_in', 'stand_in_approval'], to: 'voided' },
  standInApprove: { from: ['stand_in_approval'], to: 'stand_in', sets: ['expiresAt'] },
} as const satisfies Record<string, Transition<RedemptionState>>;

export const COUPON_LOCK_TRANSITIONS = {
  pay: { from: ['locked'], to: 'paying', sets: ['paymentId', 'paidTotal'] },
  payApplied: { from: ['paying', 'used'], to: 'used' },
  payRefused: { from: ['paying'], to: 'locked', clears: ['paymentId', 'paidTotal'] },
  // The upstream lock ended without the payment on record: the coupons were never burned.
  payLapsed: { from: ['paying'], to: 'abandoned' },
  release: { from: ['locked'], to: 'releasing' },
  releaseApplied: { from: ['releasing'], to: 'released' },
  releaseRefused: { from: ['releasing'], to: 'locked' },
} as const satisfies Record<string, Transition<CouponLockState>>;

export const SALE_TRANSITIONS = {
  recorded: { from: ['recording'], to: 'recorded' },
  void: { from: ['recorded'], to: 'voiding', sets: ['voidRefundId'] },
  voidApplied: { from: ['voiding', 'voided'], to: 'voided' },
  voidRefused: { from: ['voiding'], to: 'recorded', clears: ['voidRefundId'] },
} as const satisfies Record<string, Transition<SaleState>>;

export type RedemptionTransition = keyof typeof REDEMPTION_TRANSITIONS;
export type CouponLockTransition = keyof typeof COUPON_LOCK_TRANSITIONS;
export type SaleTransition = keyof typeof SALE_TRANSITIONS;

/** What applying a named transition may add: the fields it `sets`, and a condition on the record beyond its state (true, or why not). */
export interface Applied<R> {
  args?: Partial<R>;
  when?: (current: R) => true | string;
}

/**
 * The change a named transition makes of `current` (in state `state`), or why
 * not: another state (`it is <state>`), or the caller's `when`.
 */
export function applyTransition<R extends object, S extends string>(t: Transition<S>, state: S, current: R, opts: Applied<R> = {}): R | string {
  if (!t.from.includes(state)) return `it is ${state}`;
  const because = opts.when?.(current) ?? true;
  if (because !== true) return because;
  const next = { ...current } as Record<string, unknown>;
  for (const field of t.clears ?? []) next[field] = undefined;
  for (const field of t.sets ?? []) next[field] = (opts.args as Record<string, unknown> | undefined)?.[field];
  next.state = t.to;
  return next as R;
}

export const MACHINES = { redemption: REDEMPTION_MACHINE, 'coupon lock': COUPON_LOCK_MACHINE, sale: SALE_MACHINE } as const;
const TRANSITIONS: Record<keyof typeof MACHINES, Record<string, Transition<string>>> = {
  redemption: REDEMPTION_TRANSITIONS,
  'coupon lock': COUPON_LOCK_TRANSITIONS,
  sale: SALE_TRANSITIONS,
};

export function isFinal<S extends string>(machine: Machine<S>, state: S): boolean {
  return machine[state].length === 0;
}

/** Why `from` -> `to` is not allowed, or null when it is. */
export function transitionRefusal<S extends string>(machine: Machine<S>, what: string, from: S, to: S): string | null {
  if (from === to) return null;
  if (machine[from]?.includes(to)) return null;
  return `${what} is ${from}; it cannot become ${to}`;
}

/** The tables as markdown, for docs/STATES.md. */
export function machinesAsMarkdown(): string {
  const out = [
    '# State machines of the money path',
    '',
    'Generated from `src/pos/money/machines.ts` by `npm run docs:states`; `test/docs/states.test.ts` fails when they differ.',
    'Every store refuses any other change inside its compare-and-set. Staying in a state (a field changing) is allowed; a final state has no way out.',
    '',
  ];
  for (const [name, machine] of Object.entries(MACHINES) as [string, Machine<string>][]) {
    out.push(`## ${name[0].toUpperCase()}${name.slice(1)}`, '', '| from | may become |', '|---|---|');
    for (const [from, to] of Object.entries(machine)) out.push(`| \`${from}\` | ${to.length ? to.map((s) => `\`${s}\``).join(', ') : '(final)'} |`);
    out.push('');
    out.push('Named transitions (what each call site applies):', '', '| name | from | to | writes |', '|---|---|---|---|');
    for (const [name_, t] of Object.entries(TRANSITIONS[name as keyof typeof MACHINES])) {
      const writes = [...(t.sets ?? []).map((f) => `\`${f}\``), ...(t.clears ?? []).map((f) => `clears \`${f}\``)].join(', ');
      out.push(`| \`${name_}\` | ${t.from.map((s) => `\`${s}\``).join(', ')} | \`${t.to}\` | ${writes} |`);
    }
    out.push('');
  }
  out.push('A `recording` sale or refund id whose write the upstream refused is deleted, not moved: the id is free again, and nothing shows it was tried.', '');
  return out.join('\n');
}
