import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitForPort } from './ports';

/**
 * Real Redis topologies for the cluster and sentinel suites, started from
 * `redis-server` and `redis-cli` on free loopback ports in a temporary
 * directory, and removed by `close()`. Kept small for a 2-core machine: no
 * persistence, no cluster replicas.
 */

const run = promisify(execFile);

export interface HostPort {
  host: string;
  port: number;
}

interface Server {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
}

function startServer(args: string[], port: number, what: string): Server {
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (err) => {
    throw new Error(`cannot start redis-server for ${what} (is it installed? .ci/run installs it): ${err.message}`);
  });
  return { port, child, exited };
}

/**
 * Starts a server on ports `build` picks, and makes sure it is the one listening:
 * between freePort() and the server's bind another process of the run (a BFF, a
 * client's source port) may take a port, and the server then exits at once. Then
 * it is tried again on new ports.
 */
async function startListening(what: string, build: () => Promise<{ args: string[]; port: number }>): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    const { args, port } = await build();
    const server = startServer(args, port, what);
    const gone = server.exited.then(() => 'exited' as const);
    const up = await Promise.race([waitForPort(port, 30_000, what).then(() => 'listening' as const), gone]);
    // A server that could not bind exits within milliseconds, even if something else answers on its port.
    if (up === 'listening' && (await Promise.race([gone, new Promise((r) => setTimeout(() => r('alive'), 200))])) === 'alive') return server;
    if (attempt >= 3) throw new Error(`${what} could not listen (exited at once ${attempt} times: its port was taken)`);
  }
}

async function stop(servers: Server[]): Promise<void> {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.exited));
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 20_000 });
  return stdout;
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const common = (dir: string, port: number) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];

export interface RedisCluster {
  nodes: HostPort[];
  /** For REDIS_CLUSTER_NODES. */
  env: string;
  close(): Promise<void>;
}

/** A Redis Cluster of `masters` masters (no replicas), slots spread by `redis-cli --cluster create`. */
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-cluster-'));
  const servers: Server[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      const nodeDir = path.join(dir, `n${i}`);
      mkdirSync(nodeDir);
      servers.push(
        await startListening('a cluster node', async () => {
          const port = await freePort();
          const busPort = await freePort();
          const args = [
            ...common(nodeDir, port),
            '--cluster-enabled',
            'yes',
            '--cluster-port',
            String(busPort),
            '--cluster-config-file',
            path.join(nodeDir, 'nodes.conf'),
            '--cluster-node-timeout',
            '2000',
          ];
          return { args, port };
        }),
      );
    }
    await run('redis-cli', ['--cluster', 'create', ...servers.map((s) => `127.0.0.1:${s.port}`), '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 30_000,
    });
    for (const s of servers) {
      await until(`cluster node ${s.port} to see the cluster ok`, 15_000, async () => /cluster_state:ok/.test(await cli(s.port, 'cluster', 'info')));
    }
  } catch (err) {
    await stop(servers);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const nodes = servers.map((s) => ({ host: '127.0.0.1', port: s.port }));
  return {
    nodes,
    env: nodes.map((n) => `${n.host}:${n.port}`).join(','),
    async close() {
      await stop(servers);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SentinelGroup {
  name: string;
  sentinels: HostPort[];
  /** For REDIS_SENTINELS. */
  env: string;
  /** The port of the master the sentinels name now. */
  masterPort(): Promise<number>;
  /** SIGKILLs the current master; resolves with its port once it is gone. */
  killMaster(): Promise<number>;
  /** Resolves once the sentinels name a master other than `oldPort`, and it accepts writes; returns its port. */
  newMaster(oldPort: number, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * One master, one replica and three sentinels (quorum 2) watching them. The
 * sentinels declare a master down after `downAfterMs` without an answer.
 */
export async function startSentinelGroup(opts: { downAfterMs?: number } = {}): Promise<SentinelGroup> {
  const name = 'posbff';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-sentinel-'));
  const data: Server[] = [];
  const sentinels: Server[] = [];
  try {
    const masterPort = await freePort();
    data.push(startServer(common(dir, masterPort), masterPort, 'the master'));
    await waitForPort(masterPort, 30_000, 'master');
    const replicaPort = await freePort();
    const replicaDir = mkdtempSync(path.join(dir, 'replica-'));
    data.push(startServer([...common(replicaDir, replicaPort), '--replicaof', '127.0.0.1', String(masterPort)], replicaPort, 'the replica'));
    await waitForPort(replicaPort, 30_000, 'replica');
    await until('the replica to be in sync', 15_000, async () => /master_link_status:up/.test(await cli(replicaPort, 'info', 'replication')));
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = path.join(dir, `sentinel-${i}.conf`);
      // A sentinel rewrites its own config file, so each gets one it may write.
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${name} ${opts.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(startServer([conf, '--sentinel'], port, 'a sentinel'));
    }
    await Promise.all(sentinels.map((s) => waitForPort(s.port, 30_000, 'sentinel')));
    // Every sentinel must know the replica and the other sentinels before a failover can be agreed.
    for (const s of sentinels) {
      await until(`sentinel ${s.port} to see the replica and two other sentinels`, 20_000, async () => {
        const info = await cli(s.port, 'sentinel', 'master', name);
        const field = (k: string) =>
          Number(
            info
              .split('\n')
              .map((l) => l.trim())
              .find((_, i, all) => all[i - 1] === k),
          );
        return field('num-slaves') >= 1 && field('num-other-sentinels') >= 2;
      });
    }
  } catch (err) {
    await stop([...sentinels, ...data]);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const masterPort = async () => Number((await cli(sentinels[0].port, 'sentinel', 'get-master-addr-by-name', name)).trim().split('\n')[1]);
  const hostPorts = sentinels.map((s) => ({ host: '127.0.0.1', port: s.port }));
  return {
    name,
    sentinels: hostPorts,
    env: hostPorts.map((n) => `${n.host}:${n.port}`).join(','),
    masterPort,
    async killMaster() {
      const port = await masterPort();
      const server = data.find((s) => s.port === port);
      if (!server) throw new Error(`no server of ours on the master port ${port}`);
      server.child.kill('SIGKILL');
      await server.exited;
      return port;
    },
    async newMaster(oldPort, timeoutMs = 30_000) {
      let port = 0;
      await until('the sentinels to promote a new master', timeoutMs, async () => {
        port = await masterPort();
        return port !== oldPort && /role:master/.test(await cli(port, 'info', 'replication'));
      });
      return port;
    },
    async close() {
      await stop([...sentinels, ...data]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
