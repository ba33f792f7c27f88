import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { upstream as upstreamSettings } from '../../src/platform/settings';
import { settingsIn } from '../../src/platform/settings/define';
import { CallCost, callCostTable, measureCallCosts, programHarness, readmeCallCostTable } from '../lib/call-costs';
import { Child, ROOT } from '../lib/processes';
import { Program, startBffProgram, startSandboxProgram } from '../lib/programs';
import { startPrivateRedis } from '../lib/redis-server';
import { sandboxCallsFromLog } from '../lib/upstream-calls';
import { Capacity, capacityLine, capacityOf, LoadResult, peakTables, runLoad } from './peak';

export interface PeakSettings {
  tills: number;
  durationS: number;
  loads: number[];
  latencyMs: number;
  drainLimitS: number;
  baseline: boolean;
}

export interface PeakResult {
  settings: PeakSettings;
  costs: CallCost[];
  /** Whether the costs measured here are the README's table. */
  costsAsInReadme: boolean;
  capacity: Capacity;
  loads: LoadResult[];
  markdown: string;
}

/**
 * Every till may send far more than a person at a till would (the load is
 * what is measured, not the per-terminal limit); the rest of the BFF's
 * settings are the defaults, its budget the published figures.
 */
const TILL_ENV = { TERMINAL_RATE_LIMIT_PER_MINUTE: '1000000000' };
/** The baseline: the same, with the budget out of reach (as the sandbox's limits are then). */
const NO_BUDGET_ENV = {
  ...Object.fromEntries(settingsIn(upstreamSettings.settings.rates).map((s) => [s.variable, '100000'])),
  ...Object.fromEntries(settingsIn(upstreamSettings.settings.quotas).map((s) => [s.variable, '10000000'])),
};

/** Scenario 8: the sandbox with the published limits on, a private Redis, two BFF instances per load; the call costs first, then each load. */
export async function peakDay(
  s: { peak: PeakSettings; quick: boolean },
  keep: <T extends Child>(c: T) => T,
  ctx: { terminalsFile: string; tokens: string[]; managerToken: string; logs: (name: string) => string; nodeFlags: string[]; work: string },
  say: (line: string) => void,
): Promise<PeakResult> {
  const p = s.peak;
  // The demo account with the published limits on, at their default figures.
  const accountsFile = path.join(ctx.work, 'peak-accounts.json');
  const [demo] = JSON.parse(readFileSync(path.join(ROOT, 'config', 'sandbox-accounts.json'), 'utf8')) as Record<string, unknown>[];
  writeFileSync(accountsFile, JSON.stringify([{ ...demo, rateLimits: { enforced: true, multiplier: 1 } }]));
  const sandboxLog = ctx.logs('sandbox-8');
  const sandbox = keep(await startSandboxProgram(sandboxLog, { SANDBOX_ACCOUNTS_FILE: accountsFile }));
  const keys = { apiKey: String(demo.apiKey), secretKey: String(demo.secretKey) };
  const redis = keep(await startPrivateRedis());
  let running: Program[] = [];
  const startBff = (prefix: string, limits: boolean, i: number) =>
    startBffProgram({
      upstream: { url: sandbox.url, ...keys },
      redisUrl: redis.url,
      redisKeyPrefix: prefix,
      terminalsFile: ctx.terminalsFile,
      logFile: ctx.logs(`bff-8-${i}`),
      nodeFlags: ctx.nodeFlags,
      env: { ...TILL_ENV, ...(limits ? {} : NO_BUDGET_ENV) },
    });

  say('   the calls each cashier action costs, counted at the sandbox');
  const costBff = await startBff('peak-cost:', true, 0);
  let costs: CallCost[];
  try {
    costs = await measureCallCosts(
      programHarness({
        bff: costBff.url,
        tokens: { cashier: ctx.tokens[0], manager: ctx.managerToken },
        sandbox: sandbox.url,
        keys,
        calls: () => sandboxCallsFromLog(sandboxLog, ''),
      }),
      { prefix: 'peak-cost', quietMs: 600 },
    );
  } finally {
    await costBff.stop();
  }
  const table = callCostTable(costs);
  const costsAsInReadme = readmeCallCostTable(readFileSync(path.join(ROOT, 'README.md'), 'utf8')) === table;
  if (!costsAsInReadme) say('   WARNING: the calls measured here are not the README table (npx tsx bench/call-costs.ts)');
  const capacity = capacityOf(costs);
  say(`   ${capacityLine(capacity)}`);

  const target = {
    sandbox,
    keys,
    sandboxLog,
    tokens: ctx.tokens,
    async startBffs(prefix: string, limits: boolean) {
      running = await Promise.all([0, 1].map((i) => startBff(prefix, limits, i)));
      return running;
    },
    async stopBffs() {
      await Promise.all(running.map((b) => b.stop()));
      running = [];
    },
  };
  const options = {
    capacity,
    durationS: p.durationS,
    tills: p.tills,
    latencyMs: p.latencyMs,
    drainLimitS: p.drainLimitS,
    retries: 3,
    progress: (l: string) => say(`   ${l}`),
  };
  const plan = [
    ...(p.baseline ? [{ label: `${p.loads[0]}× without limits`, factor: p.loads[0], limits: false }] : []),
    ...p.loads.map((f) => ({ label: `${f}×`, factor: f, limits: true })),
  ];
  const loads: LoadResult[] = [];
  try {
    for (const [index, load] of plan.entries()) {
      const r = await runLoad(target, options, { ...load, index });
      say(
        `   ${r.label}: ${Math.round(r.completedPerMin)} checkouts/min, ${r.upstream429} upstream 429s, ${r.refusedAfterHold} payments refused after hold, ` +
          `${r.startsRefused} starts refused, ${r.plain.queued} sales queued (drained after ${r.drainS ?? 'n/a'} s), lost ${r.ledger.lost}, doubled ${r.ledger.doubled}, ` +
          `useful ${Math.round(r.usefulShare * 100)} % of the quota`,
      );
      loads.push(r);
    }
  } finally {
    await target.stopBffs();
  }
  const markdown = `${table}\n\n${capacityLine(capacity)}\n\n${peakTables(loads, capacity, p.durationS)}`;
  return { settings: p, costs, costsAsInReadme, capacity, loads, markdown };
}
