import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { addStore } from '../../src/pos/terminals';
import type { Child } from '../lib/processes';
import { builtProduct, startBffProgram } from '../lib/programs';
import { startPrivateRedis } from '../lib/redis-server';

/**
 * Scenario 9: the terminal CLI on a built install (`node dist/pos/terminals/cli.js`, as the image runs it), and
 * how long a revocation takes to be refused by every instance of a fleet (TERMINALS_SHARED=redis).
 *
 * CLI figures are the median wall time of `runs` runs of each command, interleaved with `node -e 0` (the floor
 * no Node program goes under) so both see the same noise; the ratio is the figure to compare across machines.
 * Revocation: two BFF programs on one Redis, neither with a terminals file; the CLI revokes a terminal and the
 * bench asks both instances every 10 ms until both refuse its token, timed from the CLI's exit (the operator's
 * "done") and from its start.
 */
export interface TerminalsFleetResult {
  cli: { command: string; medianMs: number; ratio: number }[];
  floorMs: number;
  revocation: { fromExitMs: number[]; fromStartMs: number[] };
  markdown: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function terminalsFleet(o: {
  work: string;
  upstream: { url: string; apiKey: string; secretKey: string };
  keep: <T extends Child>(c: T) => T;
  logs: (name: string) => string;
  runs: number;
  rounds: number;
  say: (line: string) => void;
}): Promise<TerminalsFleetResult> {
  const dist = builtProduct();
  const cliJs = path.join(dist, 'pos', 'terminals', 'cli.js');
  const redis = o.keep(await startPrivateRedis());
  const file = path.join(o.work, 'fleet-terminals.json');
  const prefix = 'bench-fleet:';
  const env = { ...process.env, NODE_ENV: 'test', TERMINALS_SHARED: 'redis', REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, TERMINALS_FILE: file };
  const run = (args: string[]) => {
    const started = performance.now();
    const r = spawnSync(process.execPath, args, { env, cwd: o.work, encoding: 'utf8' });
    const ms = performance.now() - started;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, stdout: r.stdout };
  };

  // A registry of the size a chain has: 1,000 terminals in one import (timed once: it is one command).
  addStore(file, { id: 'store-fleet', merchant: { uniqueId: 'm-fleet', name: 'Fleet Retail' }, branch: { uniqueId: 'b-fleet', name: 'Fleet Branch' } });
  const csv = path.join(o.work, 'fleet-terminals.csv');
  writeFileSync(csv, ['id,store_id,role,label', ...Array.from({ length: 1000 }, (_, i) => `fleet-${i},store-fleet,cashier,`)].join('\n'));
  const imported = run([cliJs, 'import', csv, '--tokens', '-']);
  const tokens = imported.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[3]);

  const commands: Record<string, string[]> = {
    'node -e 0 (floor)': ['-e', '0'],
    'list (1,000 terminals)': [cliJs, 'list'],
    'list --store --active --json': [cliJs, 'list', '--store', 'store-fleet', '--active', '--json'],
    export: [cliJs, 'export'],
    'publish (Redis already in step)': [cliJs, 'publish'],
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  const names = Object.keys(commands);
  for (let r = 0; r < o.runs; r++) {
    // Interleaved, a different command first each round.
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      times[name].push(run(commands[name]).ms);
    }
  }
  const floorMs = median(times['node -e 0 (floor)']);
  const cli = [
    ...names.slice(1).map((command) => ({ command, medianMs: median(times[command]), ratio: median(times[command]) / floorMs })),
    { command: 'import (1,000 terminals, once)', medianMs: imported.ms, ratio: imported.ms / floorMs },
  ];

  // Two instances, neither with the file.
  const bffs = [];
  for (const i of [0, 1]) {
    bffs.push(
      o.keep(
        await startBffProgram({
          upstream: o.upstream,
          redisUrl: redis.url,
          redisKeyPrefix: prefix,
          terminalsFile: path.join(o.work, `fleet-host-${i}`, 'terminals.json'),
          logFile: o.logs(`bff-fleet-${i}`),
          env: { TERMINALS_SHARED: 'redis', AUTH_FAILURE_LIMIT_PER_MINUTE: '0' },
        }),
      ),
    );
  }
  const statusOf = async (url: string, token: string) =>
    (await fetch(`${url}/pos/v1/outbox/obx_none`, { headers: { authorization: `Bearer ${token}` } })).status;
  const revocation = { fromExitMs: [] as number[], fromStartMs: [] as number[] };
  for (let r = 0; r < o.rounds; r++) {
    const token = tokens[r];
    for (const b of bffs) {
      const until = Date.now() + 30_000;
      while ((await statusOf(b.url, token)) === 401) {
        if (Date.now() > until) throw new Error(`${b.url} never accepted terminal fleet-${r}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    }
    const started = performance.now();
    run([cliJs, 'revoke', `fleet-${r}`]);
    const exited = performance.now();
    const pending = new Set(bffs.map((b) => b.url));
    while (pending.size) {
      for (const url of [...pending]) if ((await statusOf(url, token)) === 401) pending.delete(url);
      if (performance.now() - exited > 30_000) throw new Error(`revocation of fleet-${r} not refused everywhere within 30 s`);
      if (pending.size) await new Promise((res) => setTimeout(res, 10));
    }
    const done = performance.now();
    revocation.fromExitMs.push(done - exited);
    revocation.fromStartMs.push(done - started);
    o.say(`   revocation ${r + 1}/${o.rounds}: refused by both ${Math.round(done - exited)} ms after the CLI returned`);
  }
  for (const b of bffs) await b.stop();
  await redis.stop();

  const fmt = (n: number) => n.toFixed(0);
  const markdown = [
    `Terminal CLI on a built install (node ${path.relative(process.cwd(), cliJs)}), median of ${o.runs}; floor: node -e 0 = ${fmt(floorMs)} ms`,
    '',
    '| Command | Median ms | x floor |',
    '|---|---:|---:|',
    ...cli.map((c) => `| ${c.command} | ${fmt(c.medianMs)} | ${c.ratio.toFixed(1)} |`),
    '',
    `Fleet revocation (TERMINALS_SHARED=redis, 2 instances, ${o.rounds} revocations; goal: refused everywhere within 2,000 ms)`,
    '',
    '| From | Median ms | Max ms |',
    '|---|---:|---:|',
    `| CLI exit to refused by both | ${fmt(median(revocation.fromExitMs))} | ${fmt(Math.max(...revocation.fromExitMs))} |`,
    `| CLI start to refused by both | ${fmt(median(revocation.fromStartMs))} | ${fmt(Math.max(...revocation.fromStartMs))} |`,
  ].join('\n');
  return { cli, floorMs, revocation, markdown };
}
