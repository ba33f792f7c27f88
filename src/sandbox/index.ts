import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type express from 'express';
import type { Logger } from 'pino';
import { silentLogger } from '../platform/logger';
import { AccountSettings, AccountSettingsInput, parseAccounts } from './accounts';
import { buildApp } from './app';
import { SandboxClock } from './clock';
import type { SandboxContext } from './context';
import { BatchJobs } from './state/batch-jobs';
import { FaultRules } from './state/faults';
import { RequestLog } from './state/request-log';
import { SandboxStore } from './state/store';

export { loadSandboxAccounts, parseAccounts, publicSettings } from './accounts';
export type { AccountSettings, AccountSettingsInput, PublicAccountSettings } from './accounts';
export { SandboxClock } from './clock';
export type { SandboxContext } from './context';

export interface SandboxOptions {
  /** Validated settings (from loadSandboxAccounts) or raw ones (validated here). */
  accounts: (AccountSettings | AccountSettingsInput)[];
  logger?: Logger;
  bodyLimitBytes?: number;
  /** Epoch ms the sandbox clock starts at (default: real time). */
  startTime?: number;
  /** Stop the clock: it then moves only by `POST /_sandbox/clock/advance` (exact expiry tests). */
  frozenClock?: boolean;
}

export interface Sandbox {
  app: express.Express;
  /** For in-process tools and tests that need more than HTTP (e.g. seeding a million customers). */
  context: SandboxContext;
  close(): Promise<void>;
}

export function createSandbox(opts: SandboxOptions): Sandbox {
  const accounts = parseAccounts(opts.accounts, 'createSandbox options');
  const startTime = opts.startTime ?? Date.now();
  const clock = opts.frozenClock ? new SandboxClock(startTime, () => startTime) : new SandboxClock(startTime);
  const ctx: SandboxContext = {
    store: new SandboxStore(accounts, clock),
    clock,
    logger: opts.logger ?? silentLogger,
    beforeOperation: [],
    onClose: [],
    faults: new FaultRules(),
    requestLog: new RequestLog(),
    batchJobs: new BatchJobs(),
  };
  ctx.store.onReset(() => {
    ctx.faults.clear();
    ctx.requestLog.clear();
    ctx.batchJobs.clear();
  });
  ctx.onClose.push(() => ctx.batchJobs.clear());
  const app = buildApp(ctx, opts.bodyLimitBytes);
  return {
    app,
    context: ctx,
    async close() {
      for (const fn of ctx.onClose) await fn();
    },
  };
}

export interface StartedSandbox {
  url: string;
  port: number;
  app: express.Express;
  context: SandboxContext;
  close(): Promise<void>;
}

/** Creates the sandbox and listens (port 0 = any free port; host defaults to loopback). */
export async function startSandbox(opts: SandboxOptions & { host?: string; port?: number }): Promise<StartedSandbox> {
  const sandbox = createSandbox(opts);
  const host = opts.host ?? '127.0.0.1';
  const server: Server = await new Promise((resolve, reject) => {
    const s = sandbox.app.listen(opts.port ?? 0, host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    app: sandbox.app,
    context: sandbox.context,
    async close() {
      await sandbox.close();
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
