import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { upstream as upstreamSettings } from '../../src/platform/settings';
import { settingsIn } from '../../src/platform/settings/define';
import { CallCost, callCostTable, measureCallCosts, programHarness, readmeCallCostTable, SALE_MODES, SaleMode, saleModeEnv } from '../lib/call-costs';
import { Child, ROOT } from '../lib/processes';
import { Program, startBffProgram, startSandboxProgram } from '../lib/programs';
import { startPrivateRedis } from '../lib/redis-server';
import { sandboxCallsFromLog } from '../lib/upstream-calls';
import { Capacity, capacityLine, capacityOf, LoadResult, modeVerdicts, PeakTarget, peakTables, runLoad, secondLegRatios } from './peak';

export interface PeakSettings {
  /** Further settings for the BFFs under the published limits (e.g. a reserve to try). */
  env: Record<string, string>;
  tills: number;
  durationS: number;
  loads: number[];
  latencyMs: number;
  drainLimitS: number;
  baseline: boolean;
  /** The ways of recording a sale each load runs in (SALES_RECORDED_AS), one after the other, the order alternating from load to load. */
  modes: SaleMode[];
}

export interface PeakResult {
  settings: PeakSettings;
  /** The call costs with sales recorded each way (both are always measured: the table has both). */
  costs: Record<SaleMode, CallCost[]>;
  /** Whether the costs measured here are the README's table. */
  costsAsInReadme: boolean;
  /** Payment mode's: the loads are multiples of it in both modes. */
  capacity: Capacity;
  /** Each mode's own, from its call costs (for information, and the bucket whose useful calls are reported). */
  capacities: Record<SaleMode, Capacity>;
  loads: LoadResult[];
  markdown: string;
}

/**
 * Every till may send far more than a person at a till would (the load is
 * what is measured, not the per-terminal limit); the rest of the BFF's
 * settings are the defaults, its budget the published figures.
 */
const TILL_ENV = { TERMINAL_RATE_LIMIT_PER_MINUTE: '1000000000' };
/** As before the quota: the published rates paced fleet-wide, no quota (and a sandbox that enforced nothing). */
const RATES_ONLY_ENV = Object.fromEntries(settingsIn(upstreamSettings.settings.quotas).map((s) => [s.variable, '0']));

/** What the tills ring up, said in the output as in the README. */
const CHECKOUT_MIX =
  'Checkouts: half with points (QR code -> hold -> payment with its receipt), half plain sales with their receipt; no earn previews ' +
  '(in order mode they would share the Orders (tracking) bucket with the sales).';

/** Resolves every caller's `begin()` once `n` have called it: the same start for loads run side by side, `offsetMs` apart. */
function startTogether(n: number, offsetMs: number): () => Promise<number> {
  let waiting: ((at: number) => void)[] = [];
  return () =>
    new Promise<number>((resolve) => {
      waiting.push(resolve);
      if (waiting.length < n) return;
      const at = Date.now() + 500;
      waiting.forEach((go, i) => go(at + i * offsetMs));
      waiting = [];
    });
}

/** Scenario 8: the sandbox with the published limits on, a private Redis, two BFF instances per load; the call costs first, then each load. */
export async function peakDay(
  s: { peak: PeakSettings; quick: boolean },
  keep: <T extends Child>(c: T) => T,
  ctx: { terminalsFile: string; tokens: string[]; managerToken: string; logs: (name: string) => string; nodeFlags: string[]; work: string },
  say: (line: string) => void,
): Promise<PeakResult> {
  const p = s.peak;
  const [demo] = JSON.parse(readFileSync(path.join(ROOT, 'config', 'sandbox-accounts.json'), 'utf8')) as Record<string, unknown>[];
  const keys = { apiKey: String(demo.apiKey), secretKey: String(demo.secretKey) };
  const redis = keep(await startPrivateRedis());
  /** A sandbox of its own (its own log) for one side: the demo account with the published limits on at their default figures. */
  const sandboxFor = async (name: string) => {
    const accountsFile = path.join(ctx.work, `${name}-accounts.json`);
    writeFileSync(accountsFile, JSON.stringify([{ ...demo, rateLimits: { enforced: true, multiplier: 1 } }]));
    const log = ctx.logs(name);
    return { sandbox: keep(await startSandboxProgram(log, { SANDBOX_ACCOUNTS_FILE: accountsFile })), log };
  };
  const startBff = (sandbox: Program, prefix: string, limits: boolean, name: string, mode: SaleMode, extra: Record<string, string> = {}) =>
    startBffProgram({
      upstream: { url: sandbox.url, ...keys },
      redisUrl: redis.url,
      redisKeyPrefix: prefix,
      terminalsFile: ctx.terminalsFile,
      logFile: ctx.logs(name),
      nodeFlags: ctx.nodeFlags,
      env: { ...TILL_ENV, ...(limits ? p.env : RATES_ONLY_ENV), ...saleModeEnv(mode), ...extra },
    });
  /** One side of the scenario: its sandbox, and two BFF instances per load. */
  const targetFor = async (name: string, limits: boolean): Promise<PeakTarget> => {
    const { sandbox, log } = await sandboxFor(`sandbox-8-${name}`);
    let running: Program[] = [];
    return {
      sandbox,
      keys,
      sandboxLog: log,
      tokens: ctx.tokens,
      async startBffs(prefix: string, mode: SaleMode) {
        running = await Promise.all([0, 1].map((i) => startBff(sandbox, prefix, limits, `bff-8-${name}-${mode}-${i}`, mode)));
        return running;
      },
      async stopBffs() {
        await Promise.all(running.map((b) => b.stop()));
        running = [];
      },
    };
  };
  const limited = await targetFor('limits', true);
  const { sandbox, sandboxLog } = limited;

  say('   the calls each cashier action costs, counted at the sandbox, with sales recorded as payments and as orders');
  const costs = {} as Record<SaleMode, CallCost[]>;
  for (const mode of SALE_MODES) {
    // The key check's balance read (every 60 s by default) would be counted for whichever action it fell in: off, as in the test's stack.
    const costBff = await startBff(sandbox, `peak-cost-${mode}:`, true, `bff-8-cost-${mode}`, mode, { LOYALTY_KEY_CHECK_SECONDS: '3600' });
    try {
      costs[mode] = await measureCallCosts(
        programHarness({
          bff: costBff.url,
          tokens: { cashier: ctx.tokens[0], manager: ctx.managerToken },
          sandbox: sandbox.url,
          keys,
          calls: () => sandboxCallsFromLog(sandboxLog, ''),
        }),
        { prefix: `peak-cost-${mode}`, quietMs: 600 },
      );
    } finally {
      await costBff.stop();
    }
  }
  const table = callCostTable(costs);
  const costsAsInReadme = readmeCallCostTable(readFileSync(path.join(ROOT, 'docs', 'operator', 'performance.md'), 'utf8')) === table;
  if (!costsAsInReadme) say('   WARNING: the calls measured here are not the README table (npx tsx bench/call-costs.ts)');
  const capacities = { payment: capacityOf(costs.payment), order: capacityOf(costs.order) };
  const capacity = capacities.payment;
  say(`   ${capacityLine(capacity)}`);
  say(`   order mode's own: ${capacityLine(capacities.order)} (the loads stay multiples of payment mode's, so both modes are offered the same)`);
  say(`   ${CHECKOUT_MIX}`);

  const before = p.baseline ? await targetFor('before', false) : undefined;
  const options = {
    capacity,
    capacities,
    durationS: p.durationS,
    tills: p.tills,
    latencyMs: p.latencyMs,
    drainLimitS: p.drainLimitS,
    retries: 3,
    progress: (l: string) => say(`   ${l}`),
  };
  const report = (r: LoadResult) =>
    say(
      `   ${r.label} ${r.mode}: ${Math.round(r.recordedPerMin)} checkouts/min completed at once (201), ${r.plain.queued} queued (202), ${r.upstream429} upstream 429s, ${r.refusedAfterHold} payments refused after hold, ` +
        `${r.startsRefused} starts refused, backlog drained after ${r.drainS ?? 'n/a'} s, lost ${r.ledger.lost}, doubled ${r.ledger.doubled}, ` +
        `useful ${Math.round(r.usefulShare * 100)} % of what ${r.usefulBucket}'s limits allow; budget refusals ${JSON.stringify(r.budgetRefusals)}`,
    );
  const loads: LoadResult[] = [];
  try {
    for (const [index, factor] of p.loads.entries()) {
      // Interleaved: the modes' order alternates from load to load, so each sees the same share of the machine's noise.
      const modes = index % 2 ? [...p.modes].reverse() : p.modes;
      for (const mode of modes) {
        const load = { label: `${factor}×`, factor, limits: true, index, mode };
        if (index === 0 && before) {
          // The lowest load also as before the quota, side by side on a sandbox of its own, so both see the same machine.
          const begin = startTogether(2, (p.tills / (factor * capacity.perSecond) / p.tills / 2) * 1000);
          const pair = await Promise.all([
            runLoad(limited, options, load, begin),
            runLoad(before, options, { ...load, label: `${factor}× as before (rates alone, no quota, no sandbox limits)`, limits: false }, begin),
          ]);
          pair.reverse().forEach(report);
          loads.push(...pair);
        } else {
          const r = await runLoad(limited, options, load);
          report(r);
          loads.push(r);
        }
      }
    }
  } finally {
    await limited.stopBffs();
    await before?.stopBffs();
  }
  for (const v of modeVerdicts(loads)) say(`   ${v.factor}×: ${v.target}: ${v.measured} (${v.met ? 'met' : 'NOT met'})`);
  say(`   ${secondLegRatios(loads)}`);
  const markdown = [
    table,
    capacityLine(capacity),
    `Order mode's own: ${capacityLine(capacities.order)} (the loads stay multiples of payment mode's).`,
    CHECKOUT_MIX,
    peakTables(loads, capacity, p.durationS),
  ].join('\n\n');
  return { settings: p, costs, costsAsInReadme, capacity, capacities, loads, markdown };
}
