/**
 * The state machines of the money path, declared as transition tables. Every
 * store checks a proposed change against its table inside its compare-and-set
 * (memory and Redis alike), so no call site can move a record where the table
 * does not allow. A claim is a state of its own (`paying`, `voiding`,
 * `releasing`, `recording`): whoever writes it first owns the upstream call.
 * Staying in the same state (a field changing) is always allowed; a final
 * state has no way out. docs/STATES.md is generated from these tables.
 */
export type Machine<S extends string> = { readonly [K in S]: readonly S[] };

export type RedemptionState = 'otp_required' | 'confirming' | 'held' | 'paying' | 'voiding' | 'redeemed' | 'voided' | 'expired';

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
  redeemed: [],
  voided: [],
  expired: [],
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

export const MACHINES = { redemption: REDEMPTION_MACHINE, 'coupon lock': COUPON_LOCK_MACHINE, sale: SALE_MACHINE } as const;

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
  }
  out.push('A `recording` sale or refund id whose write the upstream refused is deleted, not moved: the id is free again, and nothing shows it was tried.', '');
  return out.join('\n');
}
