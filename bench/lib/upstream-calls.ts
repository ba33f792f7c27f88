import { readFileSync } from 'node:fs';
import { API_PREFIX, SERVED_OPERATIONS } from '../../src/contract';

/**
 * The upstream calls one cashier action made, as the upstream saw them
 * (arrival and finish, epoch ms), and how many of them the till waited for
 * one after another.
 */
export interface UpstreamCall {
  requestId: string;
  operation: string;
  start: number;
  end: number;
  /** The HTTP status the upstream answered (the sandbox's log; the stub does not record it). */
  status?: number;
}

// Every operation the sandbox serves (a sale recorded as a tracked order is `trackOrder`, POST /orders).
const ROUTES = Object.values(SERVED_OPERATIONS).map((op) => ({
  id: op.id,
  method: op.method,
  pattern: new RegExp(`^${API_PREFIX}${op.path.replace(/:[A-Za-z]+/g, '[^/?]+')}(?:\\?.*)?$`),
}));

/** The v4.0 operation id of a request line, or undefined (e.g. an admin route). */
export function operationOf(method: string, url: string): string | undefined {
  return ROUTES.find((r) => r.method === method && r.pattern.test(url))?.id;
}

/**
 * The sandbox's calls from its log (JSON lines from pino-http: `time` when the
 * answer was finished, `responseTime` since the request arrived, `req.id` the
 * caller's X-Request-Id, `res.statusCode`). Whole milliseconds.
 */
export function sandboxCallsFromLog(file: string, requestIdPrefix: string): UpstreamCall[] {
  return sandboxCallsFromLines(readFileSync(file, 'utf8').split('\n'), requestIdPrefix);
}

/** As sandboxCallsFromLog, from log lines already read (e.g. a test's in-process sandbox); `''` takes every call. */
export function sandboxCallsFromLines(lines: Iterable<string>, requestIdPrefix = ''): UpstreamCall[] {
  const calls: UpstreamCall[] = [];
  for (const line of lines) {
    if (!line.includes(requestIdPrefix) || !line.includes('responseTime')) continue;
    let entry: { time?: number; responseTime?: number; req?: { id?: string; method?: string; url?: string }; res?: { statusCode?: number } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    const { time, responseTime, req } = entry;
    if (typeof time !== 'number' || typeof responseTime !== 'number' || !req?.id?.startsWith(requestIdPrefix)) continue;
    const operation = operationOf(req.method ?? '', req.url ?? '');
    if (operation) calls.push({ requestId: req.id, operation, start: time - responseTime, end: time, status: entry.res?.statusCode });
  }
  return calls;
}

export interface WaitedFor {
  /** Calls that finished before the till had its answer. */
  calls: number;
  /** Their operations, in the order they started. */
  operations: string[];
  /** The longest chain of them where each starts after the one before ended: round trips one after another. */
  inSequence: number;
  chain: string[];
  /** Sum of the chain's durations at the upstream, ms. */
  chainMs: number;
  /** When the first waited-for call arrived upstream and the last one finished (epoch ms; NaN with none). */
  firstStart: number;
  lastEnd: number;
}

/**
 * Which of `calls` the till waited for, and how many in sequence. A call that
 * ends more than `toleranceMs` after the answer was not waited for (e.g. the
 * hold lookup sent after a redemption's answer). Two calls are in sequence
 * when the second starts after the first ended, give or take `toleranceMs`
 * (clocks of two processes, whole milliseconds in the sandbox's log); calls
 * in parallel overlap by almost the whole upstream latency.
 */
export function waitedFor(calls: UpstreamCall[], answeredAt: number, toleranceMs: number): WaitedFor {
  const before = calls.filter((c) => c.end <= answeredAt + toleranceMs).sort((a, b) => a.end - b.end);
  const chain: UpstreamCall[] = [];
  for (const c of before) {
    const last = chain[chain.length - 1];
    if (!last || c.start >= last.end - toleranceMs) chain.push(c);
  }
  const operations = [...before].sort((a, b) => a.start - b.start).map((c) => c.operation);
  return {
    calls: before.length,
    operations,
    inSequence: chain.length,
    chain: chain.map((c) => c.operation),
    chainMs: chain.reduce((n, c) => n + (c.end - c.start), 0),
    firstStart: before.length ? Math.min(...before.map((c) => c.start)) : NaN,
    lastEnd: before.length ? Math.max(...before.map((c) => c.end)) : NaN,
  };
}
