import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from '../support/child-env';
import Redis from 'ioredis';
import request from 'supertest';
import { addStore, addTerminal } from '../../src/pos/terminals';
import { startSandbox, StartedSandbox } from '../../src/sandbox';
import { e2eAccount, KEY_REQUIRED, SANDBOX_KEYS } from '../support/e2e';
import { freePort } from '../support/ports';

/**
 * Real processes for fault tests: each BFF is `node --import tsx src/main.ts
 * --bff-only` on a port picked here, talking over HTTP to a sandbox that runs
 * in the test process, with Redis given by URL (the private test server or a
 * throwaway one) under a prefix of its own.
 */
export interface BffProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Every line the process wrote (pino JSON lines, and anything else). */
  logs: string[];
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  pos(token: string): { get(p: string): request.Test; post(p: string, body?: object): request.Test };
}

export interface ProcessStack {
  sandbox: StartedSandbox;
  tokens: { cashier: string; manager: string };
  /** Terminal ids (idempotency keys are scoped to them). */
  terminalIds: { cashier: string; manager: string };
  redisPrefix: string;
  /** Starts a BFF process (env on top of the stack's) and waits until /healthz answers. */
  spawnBff(env?: Record<string, string>): Promise<BffProcess>;
  seed(customerId: string, points: number): Promise<void>;
  balance(customerId: string): Promise<{ availablePointsBalance: number; totalPointsBalance: number }>;
  activity(customerId: string): Promise<{ type: string; properties?: Record<string, unknown> }[]>;
  hash(customerId: string): Promise<string>;
  /** Replaces the sandbox's fault rules; [] clears them. */
  faults(rules: object[]): Promise<void>;
  /** How many times each rule has fired. */
  faultsApplied(): Promise<number[]>;
  close(): Promise<void>;
}

export async function startProcessStack(opts: { redisUrl: string; account?: Parameters<typeof e2eAccount>[0] }): Promise<ProcessStack> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-faults-'));
  const terminalsFile = path.join(dir, 'terminals.json');
  addStore(terminalsFile, { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Test Retail' }, branch: { uniqueId: 'branch-001', name: 'Branch 001' } });
  const cashier = addTerminal(terminalsFile, { storeId: 'store-001', role: 'cashier' });
  const manager = addTerminal(terminalsFile, { storeId: 'store-001', role: 'manager' });
  const tokens = { cashier: cashier.token, manager: manager.token };
  const terminalIds = { cashier: cashier.terminal.id, manager: manager.terminal.id };
  const sandbox = await startSandbox({ accounts: [e2eAccount(opts.account)], port: 0 });
  const admin = request(sandbox.url);
  const redisPrefix = `faults:${randomUUID().slice(0, 8)}:`;
  const children: BffProcess[] = [];

  const ok = (res: request.Response, what: string) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res.body;
  };

  return {
    sandbox,
    tokens,
    terminalIds,
    redisPrefix,
    async spawnBff(env = {}) {
      const port = await freePort();
      const bff = launch(
        {
          NODE_ENV: 'test',
          LOG_LEVEL: 'info',
          LOG_PRETTY: 'false',
          HOST: '127.0.0.1',
          PORT: String(port),
          LOYALTY_BASE_URL: sandbox.url,
          LOYALTY_API_KEY: SANDBOX_KEYS.apikey,
          LOYALTY_SECRET_KEY: SANDBOX_KEYS.secretkey,
          LOYALTY_TIMEOUT_MS: '5000',
          REDIS_URL: opts.redisUrl,
          REDIS_KEY_PREFIX: redisPrefix,
          TERMINALS_FILE: terminalsFile,
          DEMO_SETUP: 'false',
          SWEEPER_INTERVAL_MS: '200',
          // No balancer here: a test that wants the grace sets it.
          SHUTDOWN_GRACE_SECONDS: '0',
          ...env,
        },
        port,
      );
      children.push(bff);
      await untilHealthy(bff);
      return bff;
    },
    async seed(customerId, points) {
      ok(await admin.post('/_sandbox/customers').set(SANDBOX_KEYS).send({ customerId, points }), 'seed');
    },
    async balance(customerId) {
      return ok(await admin.get(`/api/v4.0/integrations/customers/${customerId}/balance`).set(SANDBOX_KEYS), 'balance');
    },
    async activity(customerId) {
      return ok(await admin.get(`/_sandbox/customers/${customerId}/activity`).set(SANDBOX_KEYS), 'activity').activity;
    },
    async hash(customerId) {
      return ok(await admin.get(`/api/v4.0/integrations/customers/${customerId}/hash`).set(SANDBOX_KEYS), 'hash').hash;
    },
    async faults(rules) {
      ok(await admin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }), 'faults');
    },
    async faultsApplied() {
      return (ok(await admin.get('/_sandbox/faults').set(SANDBOX_KEYS), 'faults').rules as { applied: number }[]).map((r) => r.applied);
    },
    async close() {
      for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
      await Promise.all(children.map((c) => c.exited));
      await sandbox.close();
      const r = new Redis(opts.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
      try {
        await r.connect();
        const keys = await r.keys(`${redisPrefix}*`);
        if (keys.length) await r.del(...keys);
      } catch {
        // A throwaway Redis may be gone already: nothing to clean.
      } finally {
        r.disconnect();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function launch(env: Record<string, string>, port: number): BffProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--bff-only'], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...childEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const collect = (chunk: Buffer) => logs.push(...String(chunk).split('\n').filter(Boolean));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const http = request(url);
  return {
    url,
    port,
    child,
    logs,
    exited,
    pos: (token) => ({
      get: (p) => http.get(`/pos/v1${p}`).set('Authorization', `Bearer ${token}`),
      post: (p, body) => {
        const t = http.post(`/pos/v1${p}`).set('Authorization', `Bearer ${token}`);
        if (KEY_REQUIRED.test(p)) void t.set('Idempotency-Key', randomUUID());
        return body === undefined ? t : t.send(body);
      },
    }),
  };
}

async function untilHealthy(bff: BffProcess, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void bff.exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`BFF exited during start-up:\n${bff.logs.join('\n')}`);
    const res = await fetch(`${bff.url}/healthz`).catch(() => undefined);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`BFF did not answer /healthz within ${timeoutMs} ms:\n${bff.logs.join('\n')}`);
}

/** Polls `cond` every 25 ms until it holds; fails after `timeoutMs`. */
export async function eventually<T>(cond: () => Promise<T | undefined | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
