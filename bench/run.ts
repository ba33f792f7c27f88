import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { upstream as upstreamSettings } from '../src/platform/settings';
import { settingsIn } from '../src/platform/settings/define';
import { addStore, addTerminal } from '../src/pos/terminals';
import { loadSandboxAccounts } from '../src/sandbox';
import { SALE_MODES, SaleMode } from './lib/call-costs';
import { LoadSpec, measureInterleaved } from './lib/load';
import { Child, ROOT, startServer } from './lib/processes';
import { redisCommandsProbe } from './lib/probes';
import { startBffProgram, startSandboxProgram, useCompiledPrograms } from './lib/programs';
import { startPrivateRedis } from './lib/redis-server';
import { adminGet, adminPut, seedCustomers } from './lib/sandbox-admin';
import { sandboxCallsFromLog, UpstreamCall } from './lib/upstream-calls';
import { HttpFigures, httpTable, machineInfo, targetTable } from './lib/report';
import { ActionsResult, actionsTable, ActionTarget, measureActions } from './scenarios/actions';
import { HoldScaleResult, holdTrackerScale } from './scenarios/holds';
import { peakDay, PeakResult } from './scenarios/peak-setup';
import { checkoutFigures, checkoutRequests, failures, paymentRequests, sandboxPaymentRequests } from './scenarios/requests';
import { targets } from './targets';
import { terminalsFleet, type TerminalsFleetResult } from './scenarios/terminals-fleet';

/**
 * `npm run bench`: what the BFF costs over the cheapest possible proxy, and
 * how holds and the sandbox scale, as ratios measured in one run on one
 * machine. See bench/README.md for the scenarios and options.
 */
function settingsFrom(argv: string[]) {
  const arg = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const num = (name: string, fallback: number) => {
    const v = Number(arg(name) ?? process.env[`BENCH_${name.toUpperCase()}`] ?? fallback);
    if (!(v > 0)) throw new Error(`--${name} must be a positive number`);
    return v;
  };
  const quick = argv.includes('--quick');
  return {
    quick,
    durationS: num('duration', quick ? 2 : 5),
    runs: num('runs', 3),
    warmupS: num('warmup', quick ? 1 : 2),
    connections: num('connections', 16),
    only: [...new Set((arg('only') ?? '1,2,3,4,5,6,7,8,9').split(',').map((x) => x.trim()))],
    profile: argv.includes('--profile'),
    /** Run the BFF and the sandbox compiled to JavaScript, as the Dockerfile does (default: from source with tsx, as npm start). */
    compiled: argv.includes('--compiled'),
    /** Another checkout (e.g. `git worktree add ../with-fix`) whose BFF runs scenarios 2 and 3 too, interleaved. */
    compare: arg('compare') ? path.resolve(arg('compare')!) : undefined,
    /** Settings for that second BFF (default: this checkout), e.g. `--compare-env=LOG_LEVEL=warn,TERMINAL_RATE_LIMIT_PER_MINUTE=0`. */
    compareEnv: Object.fromEntries(
      (arg('compare-env') ?? '')
        .split(',')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    ) as Record<string, string>,
    keepLogs: argv.includes('--keep-logs'),
    /** Payments (scenario 2) without an Idempotency-Key header, to see what idempotency costs. */
    idempotencyKey: !argv.includes('--no-idempotency-key'),
    /** Scenario 7: how far away the upstream is (the stub's delay, the sandbox's fault rule), and rounds of every action. */
    upstreamLatencyMs: num('upstream-latency-ms', 80),
    actionRounds: num('action-rounds', quick ? 5 : 15),
    /** Scenario 8, the peak day: tills on one account, each load (× capacity) for this long, the sandbox's calls this far away. */
    peak: {
      env: Object.fromEntries(
        (arg('peak-env') ?? '')
          .split(',')
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      ) as Record<string, string>,
      tills: num('tills', 48),
      durationS: num('peak-duration', quick ? 20 : 60),
      loads: (arg('peak-loads') ?? '0.5,1,2,4').split(',').map(Number),
      latencyMs: Number(arg('peak-latency-ms') ?? 20),
      drainLimitS: num('drain-limit', quick ? 120 : 300),
      baseline: !argv.includes('--no-baseline'),
      /** How the BFFs record sales (SALES_RECORDED_AS), each load run once per mode, interleaved. */
      modes: [...new Set((arg('peak-modes') ?? 'payment,order').split(',').map((m) => m.trim()))] as SaleMode[],
    },
    holds: { open: quick ? 100_000 : 1_000_000, due: 10_000, small: 1000, checks: 5000 },
    /** Scenario 9: runs of each terminal CLI command, and revocations timed across the fleet. */
    terminals: { runs: num('cli-runs', quick ? 5 : 15), revocations: num('revocations', quick ? 3 : 10) },
    customers: { small: 1000, large: quick ? 100_000 : 1_000_000 },
  };
}
type Settings = ReturnType<typeof settingsFrom>;
// Checked once, before anything starts.
function checkPeak(s: Settings): void {
  if (s.peak.loads.some((l) => !(l > 0))) throw new Error('--peak-loads must be positive numbers, e.g. 0.5,1,2,4');
  if (!(s.peak.latencyMs >= 0)) throw new Error('--peak-latency-ms must be 0 or more');
  if (!s.peak.modes.length || s.peak.modes.some((m) => !SALE_MODES.includes(m)))
    throw new Error('--peak-modes must name payment, order or both, e.g. payment,order');
}

/** Cashier terminals the load comes from, in turn. */
const TILLS = 64;
/**
 * Settings of the BFF under test beyond upstream, Redis and terminals. The
 * per-terminal limiter and the fleet's upstream budget (rate and quota) stay on (their
 * cost is measured: Redis calls per request) with limits the bench never
 * reaches, since it sends far more than a store's tills or the real loyalty
 * account would allow.
 */
const BFF_ENV: Record<string, string> = {
  TERMINAL_RATE_LIMIT_PER_MINUTE: '1000000000',
  ...Object.fromEntries(settingsIn(upstreamSettings.settings.rates).map((s) => [s.variable, '100000'])),
  ...Object.fromEntries(settingsIn(upstreamSettings.settings.quotas).map((s) => [s.variable, '10000000'])),
};

const say = (line: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Processes the bench started, stopped in reverse order at the end or on Ctrl-C. */
class Processes {
  private readonly running: Child[] = [];
  keep<T extends Child>(c: T): T {
    this.running.push(c);
    return c;
  }
  async stopAll(): Promise<void> {
    while (this.running.length)
      await this.running
        .pop()!
        .stop()
        .catch(() => undefined);
  }
}

interface HttpScenario {
  id: string;
  name: string;
  server: string;
  spec: Omit<LoadSpec, 'connections' | 'durationS'>;
}

/** Both load points of each scenario, all interleaved; returns the table rows in scenario order. */
async function measureGroup(s: Settings, scenarios: HttpScenario[]): Promise<HttpFigures[]> {
  const specs: Record<string, LoadSpec> = {};
  for (const sc of scenarios) {
    const watch = { ...sc.spec.watch, loadgen: process.pid };
    specs[`${sc.id}@load`] = { ...sc.spec, watch, connections: s.connections, durationS: s.durationS };
    specs[`${sc.id}@one`] = { ...sc.spec, watch, connections: 1, durationS: s.durationS };
  }
  say(`   ${Object.keys(specs).length} load specs, ${s.runs} interleaved rounds of ${s.durationS} s each`);
  failures.sample = undefined;
  const measured = await measureInterleaved(specs, s.runs, s.warmupS, (key, r) =>
    say(
      `   ${key.padEnd(8)} ${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50.toFixed(2).padStart(7)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms${r.failed ? `  FAILED ${r.failed}` : ''}`,
    ),
  );
  return scenarios.map((sc) => {
    const load = measured[`${sc.id}@load`];
    const single = measured[`${sc.id}@one`];
    if (load.median.failed + single.median.failed > 0)
      say(`   WARNING ${sc.id}: refused answers ${JSON.stringify(load.median.statuses)}; first: ${failures.sample}`);
    if (load.median.ok === 0) throw new Error(`${sc.id}. ${sc.name}: no request succeeded; first refusal: ${failures.sample}`);
    return { id: sc.id, name: sc.name, server: sc.server, load, single };
  });
}

async function main() {
  const s = settingsFrom(process.argv.slice(2));
  checkPeak(s);
  const has = (id: string) => s.only.includes(id);
  const machine = machineInfo();
  const work = mkdtempSync(path.join(os.tmpdir(), 'posbff-bench-'));
  const logs = (name: string) => path.join(work, `${name}.log`);
  const profileDir = path.join(ROOT, 'bench', 'results', 'profiles');
  const procs = new Processes();
  process.once('SIGINT', () => {
    say('interrupted: stopping what the bench started');
    void procs.stopAll().finally(() => process.exit(130));
  });

  say(`${machine.cpus} x ${machine.cpuModel}, node ${machine.node}, load average ${machine.loadAverage.join(' ')}`);
  say(`${s.runs} runs of ${s.durationS} s per figure (after ${s.warmupS} s warm-up), at ${s.connections} connections and at 1`);
  const http: HttpFigures[] = [];
  const redisBreakdown: Record<string, Record<string, number>> = {};
  let holds: HoldScaleResult | undefined;
  let actions: ActionsResult | undefined;
  let peak: PeakResult | undefined;
  let fleet: TerminalsFleetResult | undefined;

  try {
    // One store with TILLS cashier terminals, in a terminals file of the bench's own.
    const terminalsFile = path.join(work, 'terminals.json');
    addStore(terminalsFile, {
      id: 'store-bench',
      merchant: { uniqueId: 'm-bench', name: 'Bench Retail' },
      branch: { uniqueId: 'branch-bench', name: 'Bench Branch' },
    });
    const tokens = Array.from(
      { length: Math.max(TILLS, s.peak.tills) },
      (_, i) => addTerminal(terminalsFile, { storeId: 'store-bench', role: 'cashier', id: `till-${i + 1}` }).token,
    );
    const managerToken = addTerminal(terminalsFile, { storeId: 'store-bench', role: 'manager', id: 'manager-1' }).token;
    const account = loadSandboxAccounts(path.join(ROOT, 'config', 'sandbox-accounts.json'))[0];
    const sandboxKeys = { apiKey: account.apiKey, secretKey: account.secretKey };
    const nodeFlags = s.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    if (s.profile) mkdirSync(profileDir, { recursive: true });
    if (s.compiled) {
      say('compiling src/ (tsconfig.build.json) into bench/.build');
      useCompiledPrograms();
    }

    // Scenarios 1-4: every server up at once, their runs interleaved.
    if (['1', '2', '3', '4'].some(has)) {
      say('Scenarios 1-4: the BFF against the floor, and against the sandbox');
      const redis = procs.keep(await startPrivateRedis());
      const redisProbes = { '2': redisCommandsProbe(redis.url), '3': redisCommandsProbe(redis.url) };
      const stub = procs.keep(await startServer('stub', 'bench/servers/stub.ts'));
      const scenarios: HttpScenario[] = [];
      if (has('1')) {
        const floor = procs.keep(await startServer('floor', 'bench/servers/floor.ts', { BENCH_UPSTREAM_URL: stub.url }));
        scenarios.push({
          id: '1',
          name: 'Floor: Express + axios proxy -> stub',
          server: 'floor',
          spec: { url: floor.url, requests: paymentRequests(), watch: { floor: floor.pid, stub: stub.pid } },
        });
      }
      if (has('2') || has('3')) {
        const upstream = { url: stub.url, apiKey: 'bench-api-key', secretKey: 'bench-secret-key-never-logged' };
        const bff = procs.keep(
          await startBffProgram({
            upstream,
            redisUrl: redis.url,
            redisKeyPrefix: 'bench-stub:',
            terminalsFile,
            logFile: logs('bff-stub'),
            nodeFlags,
            env: BFF_ENV,
          }),
        );
        const watch = { bff: bff.pid, stub: stub.pid, redis: redis.pid };
        // Like for like with the floor: one upstream call per payment (?receipt=none); 2r adds the receipt's two reads.
        if (has('2')) {
          scenarios.push({
            id: '2',
            name: 'BFF payment, ?receipt=none -> stub',
            server: 'bff',
            spec: { url: bff.url, requests: paymentRequests(tokens, { idempotencyKey: s.idempotencyKey, receipt: 'none' }), watch, probes: [redisProbes['2']] },
          });
          scenarios.push({
            id: '2r',
            name: 'BFF payment with its receipt (payment, then balance and tier) -> stub',
            server: 'bff',
            spec: { url: bff.url, requests: paymentRequests(tokens, { idempotencyKey: s.idempotencyKey }), watch },
          });
        }
        if (has('3')) {
          const requests = checkoutRequests(tokens, { prefix: 'bench-c', count: 10_000 }, 'qr');
          scenarios.push({
            id: '3',
            name: 'BFF redemption + payment -> stub',
            server: 'bff',
            spec: { url: bff.url, requests, watch, probes: [checkoutFigures, redisProbes['3']] },
          });
        }
        if (s.compare || Object.keys(s.compareEnv).length) {
          const root = s.compare ?? ROOT;
          const env = { ...BFF_ENV, ...s.compareEnv };
          const other = procs.keep(
            await startBffProgram({
              upstream,
              redisUrl: redis.url,
              redisKeyPrefix: 'bench-cmp:',
              terminalsFile,
              logFile: logs('bff-compare'),
              nodeFlags,
              env,
              root,
            }),
          );
          const otherWatch = { bff: other.pid, stub: stub.pid, redis: redis.pid };
          const label = `(${[s.compare && path.basename(s.compare), ...Object.entries(s.compareEnv).map(([k, v]) => `${k}=${v}`)].filter(Boolean).join(' ')})`;
          if (has('2'))
            scenarios.push({
              id: '2c',
              name: `BFF payment, ?receipt=none -> stub ${label}`,
              server: 'bff',
              spec: { url: other.url, requests: paymentRequests(tokens, { idempotencyKey: s.idempotencyKey, receipt: 'none' }), watch: otherWatch },
            });
          if (has('3')) {
            const requests = checkoutRequests(tokens, { prefix: 'bench-c', count: 10_000 }, 'qr');
            scenarios.push({
              id: '3c',
              name: `BFF redemption + payment -> stub ${label}`,
              server: 'bff',
              spec: { url: other.url, requests, watch: otherWatch, probes: [checkoutFigures] },
            });
          }
        }
      }
      if (has('4')) {
        const sandbox = procs.keep(await startSandboxProgram(logs('sandbox-4')));
        await seedCustomers(sandbox, sandboxKeys, 'chk', 10_000, 1_000_000_000);
        // Typed customer ids (see checkoutRequests): the store policy that allows them.
        const env = { ...BFF_ENV, REDEMPTION_PROOF: 'none' };
        const bff = procs.keep(
          await startBffProgram({
            upstream: { url: sandbox.url, ...sandboxKeys },
            redisUrl: redis.url,
            redisKeyPrefix: 'bench-sbx:',
            terminalsFile,
            logFile: logs('bff-sandbox'),
            nodeFlags,
            env,
          }),
        );
        const requests = checkoutRequests(tokens, { prefix: 'chk', count: 10_000 }, 'typed');
        scenarios.push({
          id: '4',
          name: 'BFF redemption + payment -> sandbox',
          server: 'bff',
          spec: { url: bff.url, requests, watch: { bff: bff.pid, sandbox: sandbox.pid, redis: redis.pid }, probes: [checkoutFigures] },
        });
      }
      http.push(...(await measureGroup(s, scenarios)));
      for (const [id, probe] of Object.entries(redisProbes)) {
        if (has(id)) redisBreakdown[id] = probe.lastBreakdown;
        await probe.close();
      }
      await procs.stopAll();
    }

    // Scenario 6: one sandbox with 1k customers, one with 1M, runs interleaved.
    if (has('6')) {
      say(`Scenario 6: sandbox payments with ${s.customers.small.toLocaleString('en-US')} and ${s.customers.large.toLocaleString('en-US')} customers`);
      const scenarios: HttpScenario[] = [];
      for (const [id, count] of [
        ['6a', s.customers.small],
        ['6b', s.customers.large],
      ] as const) {
        const sandbox = procs.keep(await startSandboxProgram(logs(`sandbox-${id}`)));
        const t0 = Date.now();
        await seedCustomers(sandbox, sandboxKeys, 's6c', count, 1000);
        say(`   seeded ${count.toLocaleString('en-US')} customers in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        const requests = sandboxPaymentRequests(sandboxKeys, { prefix: 's6c', count });
        scenarios.push({
          id,
          name: `Sandbox payment, ${count.toLocaleString('en-US')} customers`,
          server: 'sandbox',
          spec: { url: sandbox.url, requests, watch: { sandbox: sandbox.pid } },
        });
      }
      http.push(...(await measureGroup(s, scenarios)));
      await procs.stopAll();
    }

    // Scenario 7: every cashier action at one till, the upstream (stub and sandbox) a set latency away.
    if (has('7')) {
      say(`Scenario 7: cashier actions at one till, upstream ${s.upstreamLatencyMs} ms away (stub and sandbox), ${s.actionRounds} rounds`);
      const redis = procs.keep(await startPrivateRedis());
      const bffOn = async (name: string, upstream: { url: string; apiKey: string; secretKey: string }) =>
        procs.keep(
          await startBffProgram({
            upstream,
            redisUrl: redis.url,
            redisKeyPrefix: `bench-${name}:`,
            terminalsFile,
            logFile: logs(`bff-${name}`),
            nodeFlags,
            env: BFF_ENV,
          }),
        );

      // Two accounts on each upstream: one that does not check OTPs, one that does (the BFF follows it from the upstream's answers).
      const stub = procs.keep(
        await startServer('stub', 'bench/servers/stub.ts', { BENCH_UPSTREAM_LATENCY_MS: String(s.upstreamLatencyMs), BENCH_RECORD_PREFIX: ACTION_PREFIX }),
      );
      const stubKeys = { url: stub.url, apiKey: 'bench-api-key', secretKey: 'bench-secret-key-never-logged' };
      const onStub: ActionTarget = {
        name: 'stub',
        bff: (await bffOn('act-stub', stubKeys)).url,
        bffOtp: (await bffOn('act-stub-otp', { ...stubKeys, apiKey: 'bench-otp-api-key' })).url,
        floor: procs.keep(await startServer('floor', 'bench/servers/floor.ts', { BENCH_UPSTREAM_URL: stub.url })).url,
        qr: async (customerId) => `${customerId}:123456`,
        otpCode: async () => '123456',
        calls: async () => (await (await fetch(`${stub.url}/_bench/calls`)).json()) as UpstreamCall[],
      };

      // The demo account and a copy of it with OTP on, in one sandbox; every v4.0 call answers after the latency.
      const accountsFile = path.join(work, 'sandbox-accounts.json');
      const [demo] = JSON.parse(readFileSync(path.join(ROOT, 'config', 'sandbox-accounts.json'), 'utf8')) as Record<string, unknown>[];
      const otpKeys = { apiKey: 'bench_otp_api_key', secretKey: 'bench_otp_secret' };
      writeFileSync(accountsFile, JSON.stringify([demo, { ...demo, name: 'Bench OTP', ...otpKeys, otpEnabled: true, seedCustomers: [] }]));
      const sandboxLog = logs('sandbox-7');
      const sandbox = procs.keep(await startSandboxProgram(sandboxLog, { SANDBOX_ACCOUNTS_FILE: accountsFile }));
      for (const keys of [sandboxKeys, otpKeys]) await seedCustomers(sandbox, keys, 'act', s.actionRounds + 1, 1_000_000);
      await adminPut(sandbox, sandboxKeys, '/_sandbox/faults', { rules: [{ operation: '*', latencyMs: s.upstreamLatencyMs }] });
      const onSandbox: ActionTarget = {
        name: 'sandbox',
        bff: (await bffOn('act-sbx', { url: sandbox.url, ...sandboxKeys })).url,
        bffOtp: (await bffOn('act-sbx-otp', { url: sandbox.url, ...otpKeys })).url,
        // What the customer's app shows: the current hash (every hold and payment rotates it), read outside the measured requests.
        qr: async (customerId, account) =>
          `${customerId}:${((await adminGet(sandbox, account === 'otp' ? otpKeys : sandboxKeys, `/api/v4.0/integrations/customers/${encodeURIComponent(customerId)}/hash`)) as { hash: string }).hash}`,
        otpCode: async (customerId) => ((await adminGet(sandbox, otpKeys, `/_sandbox/otp/${customerId}`)) as { otp: string }).otp,
        calls: async () => sandboxCallsFromLog(sandboxLog, ACTION_PREFIX),
      };
      actions = await measureActions({
        targets: [onStub, onSandbox],
        tokens: { cashier: tokens[0], manager: managerToken },
        customerPrefix: 'act',
        requestIdPrefix: ACTION_PREFIX,
        rounds: s.actionRounds,
        latencyMs: s.upstreamLatencyMs,
        progress: (l) => say(`   ${l}`),
      });
      await procs.stopAll();
    }

    // Scenario 8: the peak day, N tills on one account with the published limits on.
    if (has('8')) {
      say(`Scenario 8: peak day, ${s.peak.tills} tills on one account, published limits on, ${s.peak.durationS} s per load`);
      peak = await peakDay(s, (c) => procs.keep(c), { terminalsFile, tokens, managerToken, logs, nodeFlags, work }, say);
      await procs.stopAll();
    }

    // Scenario 5: a million open holds in one private Redis, a thousand in another.
    if (has('5')) {
      say(`Scenario 5: hold tracker with ${s.holds.open.toLocaleString('en-US')} open holds`);
      const large = procs.keep(await startPrivateRedis());
      const small = procs.keep(await startPrivateRedis());
      holds = await holdTrackerScale({
        redisUrl: large.url,
        redisSmallUrl: small.url,
        ...s.holds,
        runs: s.runs,
        logFile: logs('sweeper'),
        progress: (l) => say(`   ${l}`),
      });
      await procs.stopAll();
    }

    // Scenario 9: the terminal CLI as an install runs it, and a revocation across two instances.
    if (has('9')) {
      say(`Scenario 9: terminal CLI (built, ${s.terminals.runs} runs a command) and fleet revocation (${s.terminals.revocations} times)`);
      const stub = procs.keep(await startServer('stub', 'bench/servers/stub.ts'));
      fleet = await terminalsFleet({
        work,
        upstream: { url: stub.url, apiKey: 'bench-api-key', secretKey: 'bench-secret-key-never-logged' },
        keep: (c) => procs.keep(c),
        logs,
        runs: s.terminals.runs,
        rounds: s.terminals.revocations,
        say,
      });
      await procs.stopAll();
    }
  } finally {
    await procs.stopAll();
    if (!s.keepLogs) rmSync(work, { recursive: true, force: true });
    else say(`logs kept in ${work}`);
  }

  http.sort((a, b) => a.id.localeCompare(b.id));
  const rows = targets(http, holds, s);
  const ran = `Node ${machine.node} on ${machine.cpus} x ${machine.cpuModel}, ${machine.date.slice(0, 10)}, load average at start ${machine.loadAverage.join(' ')}`;
  const actionTable = actions ? `\n\n${actionsTable(actions, ['stub', 'sandbox'])}` : '';
  const peakTable = peak ? `\n\n${peak.markdown}` : '';
  const fleetTable = fleet ? `\n\n${fleet.markdown}` : '';
  const tables = `${ran}\n\n${http.length ? httpTable(http, s.connections) : ''}${rows.length ? `\n\n${targetTable(rows)}` : ''}${actionTable}${peakTable}${fleetTable}\n`;
  process.stdout.write(`\n${tables}\n`);
  const out = path.join(ROOT, 'bench', 'results', 'latest.json');
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const byId = Object.fromEntries(http.map((h) => [h.id, { name: h.name, server: h.server, load: h.load, single: h.single }]));
  writeFileSync(
    out,
    JSON.stringify(
      {
        machine,
        command,
        settings: s,
        http: byId,
        redisCommandsPerRequest: redisBreakdown,
        holds,
        actions,
        peak,
        terminals: fleet,
        targets: rows,
        markdown: tables,
      },
      null,
      2,
    ),
  );
  say(`wrote ${path.relative(process.cwd(), out)}`);
  if (s.profile) say(`CPU profiles of the BFF in ${path.relative(process.cwd(), profileDir)}; summarise one with: npx tsx bench/profile-top.ts <file>`);
}

/** X-Request-Id prefix of scenario 7's requests, by which the upstream's record of each call is matched. */
const ACTION_PREFIX = 'act-';

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
