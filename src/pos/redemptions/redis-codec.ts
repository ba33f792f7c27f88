import type { Redemption, RedemptionAsk, RedemptionState } from './types';

/*
 * One redemption as one Redis string, kept small because a million open holds
 * must fit in a few hundred MB:
 *
 *   <version>|<state>|<updatedAt>|<expiresAt>|<createdAt>|<the rest: JSON array without its brackets>
 *
 * state is one letter, times are base-36 epoch ms (8 characters), the id is the
 * key. Every character counts: Redis allocates in size classes (a value of up
 * to 124 characters takes 128 bytes, one more takes 160). The header is plain text so the Lua scripts can read the version and
 * state and write an expiry without a JSON round trip (cjson would also round
 * numbers to 14 digits). Fields a later change adds to `Redemption` are kept in
 * a trailing object, so nothing is lost if this list is not updated.
 */

const STATE_CODE: Record<RedemptionState, string> = {
  otp_required: 'o',
  confirming: 'k',
  held: 'h',
  paying: 'p',
  voiding: 'x',
  redeemed: 'r',
  voided: 'v',
  expired: 'e',
  stand_in_approval: 'w',
  stand_in: 's',
  stand_in_paid: 't',
  short: 'f',
};
const CODE_STATE = Object.fromEntries(Object.entries(STATE_CODE).map(([s, c]) => [c, s])) as Record<string, RedemptionState>;

/** The state letter the Lua scripts test for: an unclaimed hold, which may be expired without asking anyone. */
export const HELD_CODE = STATE_CODE.held;
/** The letters of what lapses at its expiry without asking anyone: an unclaimed hold, a stand-in not yet paid or waiting for approval. As a Lua character class. */
export const LAPSING_CODES = `[${STATE_CODE.held}${STATE_CODE.stand_in}${STATE_CODE.stand_in_approval}]`;
/**
 * The letters of a claimed hold (a payment or a void under way). The Lua
 * scripts leave such a record alone on expiry: what became of its hold is only
 * known upstream (see sweeper.ts). As a Lua character class.
 */
export const CLAIMED_CODES = `[${STATE_CODE.paying}${STATE_CODE.voiding}]`;
/** The version of a stored record `cur`, as the Lua scripts read it (a string). */
export const VERSION_LUA = "string.match(cur, '^(%d+)|')";
/** Written by earlier versions for either claim: read back by whether a payment holds it. */
const LEGACY_CLAIMED_CODE = 'c';

const ASK_CODE = { amount: 'a', points: 'p', rule: 'r' } as const;

/** Properties with a place of their own; anything else goes to the trailing object. */
const PLACED = new Set([
  'id',
  'version',
  'state',
  'updatedAt',
  'expiresAt',
  'createdAt',
  'storeId',
  'terminalId',
  'customerId',
  'ask',
  'holdReference',
  'holdAmount',
  'holdPoints',
  'paymentId',
  'email',
  'mobile',
]);

export const toBase36 = (ms: number): string => ms.toString(36);
const fromBase36 = (s: string): number => parseInt(s, 36);

function askValue(ask: RedemptionAsk): number | string {
  switch (ask.kind) {
    case 'amount':
      return ask.amount;
    case 'points':
      return ask.points;
    case 'rule':
      return ask.ruleId;
  }
}

function decodeAsk(code: string, value: number | string): RedemptionAsk {
  switch (code) {
    case ASK_CODE.amount:
      return { kind: 'amount', amount: value as number };
    case ASK_CODE.points:
      return { kind: 'points', points: value as number };
    case ASK_CODE.rule:
      return { kind: 'rule', ruleId: value as string };
    default:
      throw new Error(`stored redemption has an unknown ask code ${JSON.stringify(code)}`);
  }
}

export function encodeRedemption(r: Redemption): string {
  let extras: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(r)) {
    if (!PLACED.has(key) && value !== undefined) (extras ??= {})[key] = value;
  }
  const rest: unknown[] = [
    r.storeId,
    r.terminalId,
    r.customerId,
    ASK_CODE[r.ask.kind],
    askValue(r.ask),
    r.holdReference,
    r.holdAmount,
    r.holdPoints,
    r.paymentId,
    r.email,
    r.mobile,
    extras,
  ];
  while (rest.length > 0 && rest[rest.length - 1] === undefined) rest.pop();
  const expires = r.expiresAt === undefined ? '' : toBase36(r.expiresAt);
  return `${r.version}|${STATE_CODE[r.state]}|${toBase36(r.updatedAt)}|${expires}|${toBase36(r.createdAt)}|${JSON.stringify(rest).slice(1, -1)}`;
}

export function decodeRedemption(id: string, stored: string): Redemption {
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < 5; i++) {
    const bar = stored.indexOf('|', from);
    if (bar < 0) throw new Error(`stored redemption ${id} is malformed`);
    parts.push(stored.slice(from, bar));
    from = bar + 1;
  }
  const [version, stateCode, updatedAt, expiresAt, createdAt] = parts;
  const legacy = stateCode === LEGACY_CLAIMED_CODE;
  const state = legacy ? 'paying' : CODE_STATE[stateCode];
  if (!state) throw new Error(`stored redemption ${id} has an unknown state code ${JSON.stringify(stateCode)}`);
  const rest = (JSON.parse(`[${stored.slice(from)}]`) as unknown[]).map((v) => (v === null ? undefined : v));
  const [storeId, terminalId, customerId, askCode, ask, holdReference, holdAmount, holdPoints, paymentId, email, mobile, extras] = rest;
  const r: Redemption = {
    ...(extras as object | undefined),
    id,
    storeId: storeId as string,
    terminalId: terminalId as string,
    customerId: customerId as string,
    ask: decodeAsk(askCode as string, ask as number | string),
    state: legacy && paymentId === undefined ? 'voiding' : state,
    createdAt: fromBase36(createdAt),
    updatedAt: fromBase36(updatedAt),
    version: Number(version),
  };
  // Optional properties are absent, never `undefined`, so records compare equal after a round trip.
  const optional = { email, mobile, holdReference, holdAmount, holdPoints, paymentId, expiresAt: expiresAt === '' ? undefined : fromBase36(expiresAt) };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) (r as unknown as Record<string, unknown>)[key] = value;
  }
  return r;
}
