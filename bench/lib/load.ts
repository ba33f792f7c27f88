import autocannon from 'autocannon';
import { cpuSeconds } from './processes';

/** One autocannon request template (setupRequest/onResponse make each one unique). */
export type LoadRequest = autocannon.Request;

export interface LoadSpec {
  url: string;
  connections: number;
  durationS: number;
  requests: LoadRequest[];
  /** Processes whose CPU time is measured during the run (name -> pid). */
  watch?: Record<string, number>;
  /** Figures of the scenario's own (e.g. checkout latency, Redis commands), reset before and read after each run. */
  probes?: Probe[];
}

export interface Probe {
  reset(): void | Promise<void>;
  /** `ok`: the run's 2xx responses. */
  read(ok: number): Record<string, number> | Promise<Record<string, number>>;
}

export interface RunStats {
  /** Completed 2xx responses per second. */
  rps: number;
  /** Latency of 2xx responses, ms (measured from the send, with hrtime: sub-millisecond). */
  p50: number;
  p99: number;
  mean: number;
  ok: number;
  /** Responses that were not 2xx, and connection errors/timeouts: a run with any is flagged. */
  failed: number;
  statuses: Record<string, number>;
  /** Per watched process: share of one core used during the run, and CPU ms per 2xx response. */
  cpu: Record<string, { cores: number; msPerRequest: number }>;
  extra: Record<string, number>;
}

export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const median = (xs: number[]): number => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * One autocannon run. Latencies are taken from autocannon's `response` event
 * (hrtime, fractional ms) because its own histogram rounds to whole
 * milliseconds, too coarse for a 1 ms target.
 */
export async function runOnce(spec: LoadSpec): Promise<RunStats> {
  let latencies = new Float64Array(1 << 16);
  let ok = 0;
  let failed = 0;
  const statuses: Record<string, number> = {};
  const watch = Object.entries(spec.watch ?? {});
  const cpuBefore = watch.map(([, pid]) => cpuSeconds(pid));
  for (const p of spec.probes ?? []) await p.reset();
  const started = process.hrtime.bigint();

  let instance!: autocannon.Instance;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon({ url: spec.url, connections: spec.connections, duration: spec.durationS, requests: spec.requests, timeout: 10 }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    if (statusCode < 200 || statusCode >= 300) {
      failed += 1;
      return;
    }
    if (ok === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[ok++] = responseTime;
  });
  const result = await finished;
  const wallS = Number(process.hrtime.bigint() - started) / 1e9;
  failed += result.errors;
  if (result.errors) statuses.errors = result.errors;

  const sorted = latencies.slice(0, ok).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const cpu: RunStats['cpu'] = {};
  watch.forEach(([name, pid], i) => {
    const after = cpuSeconds(pid);
    const before = cpuBefore[i];
    if (after === undefined || before === undefined) return;
    cpu[name] = { cores: (after - before) / wallS, msPerRequest: ok ? ((after - before) * 1000) / ok : NaN };
  });
  const extra: Record<string, number> = {};
  for (const p of spec.probes ?? []) Object.assign(extra, await p.read(ok));
  return {
    rps: ok / result.duration,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: ok ? sum / ok : NaN,
    ok,
    failed,
    statuses,
    cpu,
    extra,
  };
}

export interface Measured {
  /** Median of each figure over the runs. */
  median: RunStats;
  runs: RunStats[];
}

function summarise(all: RunStats[]): Measured {
  const cpu: RunStats['cpu'] = {};
  for (const n of Object.keys(all[0].cpu))
    cpu[n] = { cores: median(all.map((r) => r.cpu[n]?.cores)), msPerRequest: median(all.map((r) => r.cpu[n]?.msPerRequest)) };
  const extra: Record<string, number> = {};
  for (const k of Object.keys(all[0].extra)) extra[k] = median(all.map((r) => r.extra[k]));
  const statuses: Record<string, number> = {};
  for (const r of all) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  return {
    median: {
      rps: median(all.map((r) => r.rps)),
      p50: median(all.map((r) => r.p50)),
      p99: median(all.map((r) => r.p99)),
      mean: median(all.map((r) => r.mean)),
      ok: all.reduce((a, r) => a + r.ok, 0),
      failed: all.reduce((a, r) => a + r.failed, 0),
      statuses,
      cpu,
      extra,
    },
    runs: all,
  };
}

/**
 * Measures several load specs against each other: a warm-up run of each
 * (discarded: JIT, connection pools), then `runs` rounds in which each spec
 * runs once, in an order that rotates every round. Interleaving gives every
 * spec the same share of a shared machine's noise, so their ratios hold even
 * when the absolute figures drift.
 */
export async function measureInterleaved(
  specs: Record<string, LoadSpec>,
  runs: number,
  warmupS: number,
  onRun?: (key: string, r: RunStats) => void,
): Promise<Record<string, Measured>> {
  const keys = Object.keys(specs);
  if (warmupS > 0) for (const k of keys) await runOnce({ ...specs[k], durationS: warmupS, watch: {}, probes: [] });
  const all: Record<string, RunStats[]> = Object.fromEntries(keys.map((k) => [k, []]));
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < keys.length; i++) {
      const k = keys[(i + round) % keys.length];
      const r = await runOnce(specs[k]);
      all[k].push(r);
      onRun?.(k, r);
    }
  }
  return Object.fromEntries(keys.map((k) => [k, summarise(all[k])]));
}
