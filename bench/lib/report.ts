import os from 'node:os';
import type { Measured } from './load';

export interface MachineInfo {
  date: string;
  node: string;
  platform: string;
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  loadAverage: number[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpus: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** One HTTP scenario at the two load points. */
export interface HttpFigures {
  id: string;
  name: string;
  /** Fixed concurrency (many tills at once): throughput. */
  load: Measured;
  /** One connection (one till): the latency a cashier sees. */
  single: Measured;
  /** The process whose CPU per request is shown. */
  server: string;
}

const f = (x: number | undefined, digits = 2) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits));
const int = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : Math.round(x).toLocaleString('en-US'));

export function httpTable(rows: HttpFigures[], connections: number): string {
  const head = [
    `| # | Scenario | req/s (c=${connections}) | p50 ms | p99 ms | p50 ms (c=1) | p99 ms (c=1) | server CPU ms/req | failed |`,
    '|---|---|--:|--:|--:|--:|--:|--:|--:|',
  ];
  const lines = rows.map((r) => {
    const cpu = r.load.median.cpu[r.server]?.msPerRequest;
    const failed = r.load.median.failed + r.single.median.failed;
    return `| ${r.id} | ${r.name} | ${int(r.load.median.rps)} | ${f(r.load.median.p50)} | ${f(r.load.median.p99)} | ${f(r.single.median.p50)} | ${f(r.single.median.p99)} | ${f(cpu, 3)} (${r.server}) | ${failed} |`;
  });
  return [...head, ...lines].join('\n');
}

export interface TargetRow {
  target: string;
  measured: string;
  met: boolean | null;
}

export function targetTable(rows: TargetRow[]): string {
  const mark = (m: boolean | null) => (m === null ? '-' : m ? 'yes' : '**no**');
  return ['| Target / figure | Measured | Met |', '|---|---|:-:|', ...rows.map((r) => `| ${r.target} | ${r.measured} | ${mark(r.met)} |`)].join('\n');
}

export { f as fixed, int as integer };
