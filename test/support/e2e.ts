import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import request from 'supertest';
import { API_PREFIX } from '../../src/contract';
import { loadConfig } from '../../src/platform/config';
import { upstream as upstreamSettings } from '../../src/platform/settings';
import { settingsIn } from '../../src/platform/settings/define';
import { createLogger } from '../../src/platform/logger';
import { POS_ROUTES } from '../../src/pos/routes';
import { RunningBff, startBff } from '../../src/pos/server';
import { addStore, addTerminal, revokeTerminal } from '../../src/pos/terminals';
import type { TerminalRole } from '../../src/pos/terminals/types';
import { loadSandboxAccounts, startSandbox, StartedSandbox } from '../../src/sandbox';
import type { AccountSettingsInput } from '../../src/sandbox';
import { Exchange, Transport } from '../../src/upstream/transport';
import { referenceViolations } from '../reference/request-validator';
import { LIMITS_OUT_OF_REACH } from './sandbox-limits';

/** The POST paths whose route entry requires an Idempotency-Key (read from the route table). */
export const KEY_REQUIRED = new RegExp(
  `^(${POS_ROUTES.filter((r) => r.idempotencyKey === 'required')
    .map((r) => r.path.replace(/:[^/]+/g, '[^/?]+'))
    .join('|')})(\\?.*)?$`,
);

/**
 * Every request a BFF of this test file sends upstream, recorded where they
 * all pass (the client's transport), so each stack can check on close that
 * what it sent fits the published reference's request schemas.
 */
const sentUpstream: Exchange[] = [];
const originalSend = Transport.prototype.send;
Transport.prototype.send = function recordingSend(this: Transport, exchange: Exchange) {
  sentUpstream.push(exchange);
  return originalSend.call(this, exchange);
};

function violationsSince(first: number): string[] {
  const found = new Set<string>();
  for (const e of sentUpstream.slice(first)) {
    const url = e.query ? `${e.path}?${new URLSearchParams(e.query)}` : e.path;
    const headers = Object.fromEntries(Object.entries(e.headers).map(([k, v]) => [k.toLowerCase(), v]));
    for (const v of referenceViolations({ method: e.method, url, headers, body: e.body === undefined ? '' : JSON.stringify(e.body) })) found.add(v);
  }
  return [...found];
}

/**
 * The whole product on loopback for end-to-end tests: the sandbox on a real
 * port, one or more BFF instances talking to it over HTTP, real Redis (the
 * private test server) or the in-process store. Tests drive the sandbox only
 * through its HTTP admin API.
 */
/** The sandbox operation a sale is sent as in this run (the order-mode project records sales as tracked orders). */
export const SALE_OPERATION = process.env.E2E_SALES_RECORDED_AS === 'order' ? 'trackOrder' : 'payment';

/** A sale sent upstream, as a payment or as a tracked order. */
export const isSaleSend = (e: { method: string; path: string }): boolean =>
  e.method === 'POST' && (e.path === `${API_PREFIX}/payments` || e.path === `${API_PREFIX}/orders`);

export const SANDBOX_KEYS = { apikey: 'e2e_api_key', secretkey: 'e2e_secret_key_do_not_leak_7f3a' };

export function e2eAccount(overrides: Partial<AccountSettingsInput> = {}): AccountSettingsInput {
  const demo = loadSandboxAccounts('config/sandbox-accounts.json')[0];
  // The published limits raised out of reach; a test about them passes its own `rateLimits` in `overrides`.
  return {
    ...demo,
    apiKey: SANDBOX_KEYS.apikey,
    secretKey: SANDBOX_KEYS.secretkey,
    seedCustomers: [],
    rateLimits: LIMITS_OUT_OF_REACH,
    ...overrides,
  } as AccountSettingsInput;
}

export interface StackOptions {
  store: 'redis' | 'memory';
  instances?: number;
  account?: Partial<AccountSettingsInput>;
  env?: Record<string, string>;
  /** Settings of one instance over `env` (e.g. a TERMINALS_FILE of its own, as on a host of its own). */
  instanceEnv?: (i: number) => Record<string, string>;
  /** Point the BFF at this loyalty service instead of the sandbox (which still starts, for the helpers). */
  upstreamUrl?: string;
  /** The BFF learns whether the account checks OTPs from the sandbox's answers, as against a real service (no live account setting). */
  otpFromAnswers?: boolean;
}

export interface Tokens {
  cashier: string;
  manager: string;
  kiosk: string;
  otherCashier: string;
  otherManager: string;
  otherKiosk: string;
  /** A store-001 cashier revoked before the BFF starts. */
  revoked: string;
}

export interface Stack {
  sandbox: StartedSandbox;
  bffs: RunningBff[];
  bff: RunningBff;
  tokens: Tokens;
  /** The terminal id behind each token (e.g. for client certificates), and the terminals file. */
  terminalIds: Record<keyof Tokens, string>;
  terminalsFile: string;
  /** Every log line the BFF instances wrote. */
  logs: string[];
  /** Requests the BFF instances sent upstream so far, by the published reference's request schemas: what does not fit (empty when all do). */
  upstreamViolations(): string[];
  /** Every request this stack's BFFs sent upstream (recorded at the transport), oldest first. */
  sentUpstream(): readonly Exchange[];
  /** Every BFF response `pos()` received: status, headers and body text (to check nothing secret leaks). */
  responses: string[];
  redisPrefix: string;
  /** supertest against instance `i` (default 0) with a terminal token. */
  pos(
    role: keyof Tokens,
    i?: number,
  ): {
    get(p: string): request.Test;
    post(p: string, body?: object): request.Test;
    put(p: string, body?: object): request.Test;
    delete(p: string): request.Test;
  };
  sandboxAdmin: ReturnType<typeof request>;
  seed(customerId: string, points: number): Promise<void>;
  /** Moves the sandbox clock and every BFF instance's clock together. */
  advance(ms: number): Promise<void>;
  balance(customerId: string): Promise<{ availablePointsBalance: number; totalPointsBalance: number; pendingPoints: number; heldPoints?: number }>;
  hash(customerId: string): Promise<string>;
  otp(customerId: string): Promise<string>;
  setAccount(patch: Partial<AccountSettingsInput>): Promise<void>;
  /** Stops BFF instance `i` and starts a new process-like instance in its place (same settings unless `env` changes some, same Redis prefix). */
  restart(i?: number, env?: Record<string, string>): Promise<RunningBff>;
  close(): Promise<void>;
}

let counter = 0;

/** Every rate and quota variable of the fleet's upstream budget. */
export function budgetFigures(): string[] {
  return [...settingsIn(upstreamSettings.settings.rates), ...settingsIn(upstreamSettings.settings.quotas)].map((s) => s.variable);
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const firstSent = sentUpstream.length;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-e2e-'));
  const terminalsFile = path.join(dir, 'terminals.json');
  for (const n of ['001', '002']) {
    addStore(terminalsFile, { id: `store-${n}`, merchant: { uniqueId: 'm-1', name: 'Test Retail' }, branch: { uniqueId: `branch-${n}`, name: `Branch ${n}` } });
  }
  const terminalIds: Record<keyof Tokens, string> = {
    cashier: 'till-cashier',
    manager: 'till-manager',
    kiosk: 'kiosk-001',
    otherCashier: 'till-cashier-002',
    otherManager: 'till-manager-002',
    otherKiosk: 'kiosk-002',
    revoked: 'till-revoked',
  };
  const add = (name: keyof Tokens, storeId: string, role: TerminalRole) => addTerminal(terminalsFile, { storeId, role, id: terminalIds[name] }).token;
  const tokens: Tokens = {
    cashier: add('cashier', 'store-001', 'cashier'),
    manager: add('manager', 'store-001', 'manager'),
    kiosk: add('kiosk', 'store-001', 'kiosk'),
    otherCashier: add('otherCashier', 'store-002', 'cashier'),
    otherManager: add('otherManager', 'store-002', 'manager'),
    otherKiosk: add('otherKiosk', 'store-002', 'kiosk'),
    revoked: add('revoked', 'store-001', 'cashier'),
  };
  revokeTerminal(terminalsFile, terminalIds.revoked);

  const logs: string[] = [];
  const responses: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', pretty: false, destination: sink });

  const sandbox = await startSandbox({ accounts: [e2eAccount(opts.account)], logger, port: 0 });
  const redisPrefix = `e2e${process.pid}x${++counter}:`;
  const redisUrl = process.env.TEST_REDIS_URL;
  if (opts.store === 'redis' && !redisUrl) throw new Error('TEST_REDIS_URL is not set: run through jest (global setup starts redis-server)');
  const baseEnv = {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    TERMINALS_FILE: terminalsFile,
    LOYALTY_TIMEOUT_MS: '3000',
    SWEEPER_INTERVAL_MS: '200',
    HOLD_SAFETY_MARGIN_SECONDS: '30',
    REDIS_KEY_PREFIX: redisPrefix,
    // The fleet's upstream budget stays in the path but never runs short, unless a test sets its own limits.
    ...Object.fromEntries(budgetFigures().map((variable) => [variable, '100000'])),
    // The key check's read counts against that budget: off the path of suites that count calls, unless a test sets its own interval.
    LOYALTY_KEY_CHECK_SECONDS: '3600',
    ...(opts.store === 'redis' ? { REDIS_URL: redisUrl } : {}),
    // Most suites test other rules with typed customer ids; test/e2e/proof-*.test.ts test REDEMPTION_PROOF itself.
    REDEMPTION_PROOF: 'none',
    // The jest project that runs the sale suites again with sales recorded as orders sets this (test/support/sales-as-orders.ts).
    ...(process.env.E2E_SALES_RECORDED_AS ? { SALES_RECORDED_AS: process.env.E2E_SALES_RECORDED_AS } : {}),
    ...opts.env,
  };
  const config = loadConfig(baseEnv);
  // A restart may change an instance's settings (as an operator does between two runs).
  const restartEnv = new Map<number, Record<string, string>>();
  const configOf = (i: number) => (opts.instanceEnv || restartEnv.has(i) ? loadConfig({ ...baseEnv, ...opts.instanceEnv?.(i), ...restartEnv.get(i) }) : config);
  let offset = 0;
  const clock = () => Date.now() + offset;
  // As main does with the bundled sandbox: the BFF reads the account's OTP setting, live (another upstream: followed from its answers).
  const upstream = {
    baseUrl: opts.upstreamUrl ?? sandbox.url,
    apiKey: SANDBOX_KEYS.apikey,
    secretKey: SANDBOX_KEYS.secretkey,
    otpRequired: opts.upstreamUrl || opts.otpFromAnswers ? undefined : () => sandbox.context.store.account(SANDBOX_KEYS.apikey)?.settings.otpEnabled ?? false,
  };
  const bffs: RunningBff[] = [];
  const startInstance = (i: number) => startBff(configOf(i), upstream, logger.child({ instance: i }), { clock });
  for (let i = 0; i < (opts.instances ?? 1); i++) bffs.push(await startInstance(i));

  const sandboxAdmin = request(sandbox.url);
  const keys = SANDBOX_KEYS;
  const pos = (role: keyof Tokens, i = 0) => {
    const http = request(bffs[i].url);
    const auth = { Authorization: `Bearer ${tokens[role]}` };
    const recorded = (t: request.Test) => {
      t.on('response', (r: request.Response) => responses.push(`${r.status} ${JSON.stringify(r.headers)} ${r.text ?? ''}`));
      return t;
    };
    return {
      get: (p: string) => recorded(http.get(`/pos/v1${p}`).set(auth)),
      post: (p: string, body?: object) => {
        // The writes that require a key get a fresh one, as a till sends; a test sets its own to retry.
        const headers = KEY_REQUIRED.test(p) ? { ...auth, 'Idempotency-Key': randomUUID() } : auth;
        return recorded(body === undefined ? http.post(`/pos/v1${p}`).set(headers) : http.post(`/pos/v1${p}`).set(headers).send(body));
      },
      put: (p: string, body?: object) => recorded(body === undefined ? http.put(`/pos/v1${p}`).set(auth) : http.put(`/pos/v1${p}`).set(auth).send(body)),
      delete: (p: string) => recorded(http.delete(`/pos/v1${p}`).set(auth)),
    };
  };
  const ok = (res: request.Response, what: string) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  return {
    sandbox,
    bffs,
    get bff() {
      return bffs[0];
    },
    tokens,
    terminalIds,
    terminalsFile,
    logs,
    responses,
    redisPrefix,
    pos,
    sandboxAdmin,
    upstreamViolations: () => violationsSince(firstSent),
    sentUpstream: () => sentUpstream.slice(firstSent),
    async seed(customerId, points) {
      ok(await sandboxAdmin.post('/_sandbox/customers').set(keys).send({ customerId, points }), 'seed');
    },
    async advance(ms) {
      ok(await sandboxAdmin.post('/_sandbox/clock/advance').set(keys).send({ ms }), 'advance');
      offset += ms;
    },
    async balance(customerId) {
      return ok(await sandboxAdmin.get(`/api/v4.0/integrations/customers/${customerId}/balance`).set(keys), 'balance');
    },
    async hash(customerId) {
      return ok(await sandboxAdmin.get(`/api/v4.0/integrations/customers/${customerId}/hash`).set(keys), 'hash').hash;
    },
    async otp(customerId) {
      return ok(await sandboxAdmin.get(`/_sandbox/otp/${customerId}`).set(keys), 'otp').otp;
    },
    async setAccount(patch) {
      const current = ok(await sandboxAdmin.get(`/_sandbox/accounts/${keys.apikey}`).set(keys), 'get account');
      ok(
        await sandboxAdmin
          .put(`/_sandbox/accounts/${keys.apikey}`)
          .set(keys)
          .send({ ...current, ...patch }),
        'put account',
      );
    },
    async restart(i = 0, env) {
      if (env) restartEnv.set(i, { ...restartEnv.get(i), ...env });
      await bffs[i].close();
      bffs[i] = await startInstance(i);
      return bffs[i];
    },
    async close() {
      for (const b of bffs) await b.close();
      await sandbox.close();
      if (opts.store === 'redis' && redisUrl) {
        const r = new Redis(redisUrl);
        const keysLeft = await r.keys(`${redisPrefix}*`);
        if (keysLeft.length) await r.del(...keysLeft);
        r.disconnect();
      }
      rmSync(dir, { recursive: true, force: true });
      // A request the published reference would refuse fails the file (its afterAll).
      const violations = violationsSince(firstSent);
      if (violations.length) throw new Error(`requests sent upstream that the published v4.0 reference refuses:\n${violations.join('\n')}`);
    },
  };
}
