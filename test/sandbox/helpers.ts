import request from 'supertest';
import type { BalanceResponse } from '../../src/contract';
import type { AccountSettingsInput } from '../../src/sandbox';
import { createSandbox, Sandbox } from '../../src/sandbox';
import { PUBLISHED_CATEGORY } from '../reference/sandbox-published';
import { LIMITS_OUT_OF_REACH } from '../support/sandbox-limits';

export const API = '/api/v4.0/integrations';
export const START = Date.parse('2025-03-01T10:00:00.000Z');
export const API_KEY = 'test_api_key_1';
export const SECRET = 'test_secret_key_1';

/** A small, fully specified account the tests reason about. */
export function testAccount(overrides: Partial<AccountSettingsInput> = {}): AccountSettingsInput {
  return {
    name: 'Test Shop',
    apiKey: API_KEY,
    secretKey: SECRET,
    currency: 'EGP',
    pointsName: 'Points',
    otpEnabled: false,
    highSecurityMode: false,
    channelMerging: 'none',
    holdPeriodMinutes: 10,
    earn: { pointsPerUnit: 1, minimumSpend: 0 },
    redemptionFactor: 0.1,
    tierProgressMethod: 'amountSpent',
    tiers: [
      { order: 1, name: 'Bronze', names: { ar: 'برونزي' }, minProgress: 0, icon: 'b.png' },
      { order: 2, name: 'Silver', names: {}, minProgress: 1000, icon: 's.png', earnRate: 1.5 },
    ],
    multipliers: [
      { category: 'electronics', pointsPerUnit: 2 },
      { tag: 'triple', pointsPerUnit: 3 },
    ],
    redemptionRules: [
      { id: 'r10', type: 'fixed_discount', pointsCost: 100, value: 10 },
      { id: 'rship', type: 'free_shipping', pointsCost: 150 },
    ],
    coupons: [],
    eventRewards: { place_order: 10 },
    otpTtlSeconds: 300,
    rateLimits: LIMITS_OUT_OF_REACH,
    ...overrides,
  };
}

export interface Harness {
  sandbox: Sandbox;
  http: ReturnType<typeof request>;
  keys: Record<string, string>;
  /** Seeds a customer with an available balance through the admin API. */
  seed(customerId: string, points: number, extra?: { email?: string; mobile?: string }): Promise<void>;
  advance(ms: number): Promise<void>;
  setAccount(patch: Partial<AccountSettingsInput>): Promise<void>;
  balance(customerId: string): Promise<BalanceResponse>;
  hash(customerId: string): Promise<string>;
}

export function harness(accounts: AccountSettingsInput[] = [testAccount()]): Harness {
  const sandbox = createSandbox({ accounts, startTime: START, frozenClock: true });
  const http = request(sandbox.app);
  const keys = { apikey: API_KEY, secretkey: SECRET };
  return {
    sandbox,
    http,
    keys,
    async seed(customerId, points, extra = {}) {
      const res = await http
        .post('/_sandbox/customers')
        .set(keys)
        .send({ customerId, points, ...extra });
      if (res.status >= 300) throw new Error(`seed failed: ${res.status} ${JSON.stringify(res.body)}`);
    },
    async advance(ms) {
      const res = await http.post('/_sandbox/clock/advance').set(keys).send({ ms });
      if (res.status !== 200) throw new Error(`advance failed: ${res.status} ${JSON.stringify(res.body)}`);
    },
    async setAccount(patch) {
      const current = await http.get(`/_sandbox/accounts/${API_KEY}`).set(keys);
      const res = await http
        .put(`/_sandbox/accounts/${API_KEY}`)
        .set(keys)
        .send({ ...current.body, ...patch });
      if (res.status !== 200) throw new Error(`setAccount failed: ${res.status} ${JSON.stringify(res.body)}`);
    },
    async balance(customerId) {
      const res = await http.get(`${API}/customers/${customerId}/balance`).set(keys);
      if (res.status !== 200) throw new Error(`balance failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async hash(customerId) {
      const res = await http.get(`${API}/customers/${customerId}/hash`).set(keys);
      if (res.status !== 200) throw new Error(`hash failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.hash;
    },
  };
}

/** The published category of a code, as the reference reading has it (429, which has no published code, is a request error). */
export const categoryOf = (code: number) => (code === 429 ? 'REQUEST_ERROR' : PUBLISHED_CATEGORY[Math.floor(code / 1000)]);

export interface LoyaltyErrorReply {
  code: number;
  type: string;
  message: string;
  documentationUrl: string;
  requestId: string;
  reason: string;
}

/** Asserts the published v4.0 error shape (plus the sandbox's `reason`) and returns the body. */
export function expectLoyaltyError(res: request.Response, status: number, code: number): LoyaltyErrorReply {
  if (res.status !== status || res.body?.code !== code) {
    throw new Error(`expected ${status}/${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  expect(Object.keys(res.body).sort()).toEqual(['code', 'documentationUrl', 'message', 'reason', 'requestId', 'type']);
  expect(res.body.type).toBe(categoryOf(code));
  expect(res.body.documentationUrl).toMatch(/^https:\/\/\S+$/);
  expect(typeof res.body.reason).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(res.body.requestId).toBe(res.headers['x-request-id']);
  return res.body;
}
