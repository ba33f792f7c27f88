import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '@jest/types';
import { codesOf } from '../../src/pos/openapi/codes';
import { POS_ROUTES } from '../../src/pos/routes';

/**
 * Keeps each operation's documented problem codes true both ways, from what
 * the BFF answered during the test run (src/pos/http/problem-trace.ts):
 * - every code answered on an operation is one it lists;
 * - on a whole run, every listed code was answered: an operation's own codes
 *   on that operation, a shared middleware's codes on any operation with that
 *   middleware.
 */
export interface Answered {
  operationId: string;
  status: number;
  code: string;
}

export function readTrace(dir: string): Answered[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Answered),
    );
}

/** Each way the lists and the answers disagree, as a sentence; empty when they agree. */
export function disagreements(answered: readonly Answered[], wholeRun: boolean, routes = POS_ROUTES): string[] {
  const listed = new Map(routes.map((r) => [r.operationId, codesOf(r)]));
  const out = new Set<string>();
  const seenOwn = new Set<string>();
  const seenShared = new Set<string>();
  for (const a of answered) {
    const codes = listed.get(a.operationId);
    if (!codes) continue;
    const source = codes.get(a.code as never);
    if (!source) out.add(`${a.operationId} answered ${a.status} ${a.code}, which it does not list (add it to its entry's codes, or fix the answer)`);
    else if (source === 'own') seenOwn.add(`${a.operationId} ${a.code}`);
    else seenShared.add(`${source} ${a.code}`);
  }
  if (!wholeRun) return [...out];
  for (const [operationId, codes] of listed) {
    for (const [code, source] of codes) {
      const seen = source === 'own' ? seenOwn.has(`${operationId} ${code}`) : seenShared.has(`${source} ${code}`);
      const where = source === 'own' ? 'on it' : `on any route with "${source}"`;
      if (!seen) out.add(`${operationId} lists ${code} (${source}), which no test produced ${where} (add a test, or unlist it)`);
    }
  }
  return [...out];
}

/** A run of every test: no path or name filter, no changed-files selection, no shard. */
export function isWholeRun(config: Config.GlobalConfig): boolean {
  return (
    config.testPathPatterns.patterns.length === 0 &&
    !config.testNamePattern &&
    !config.onlyChanged &&
    !config.onlyFailures &&
    !config.findRelatedTests &&
    !config.changedSince &&
    !config.lastCommit &&
    !config.shard &&
    config.nonFlagArgs.length === 0
  );
}

/** Counts for the run's summary line. */
export function summary(answered: readonly Answered[]): string {
  const operations = POS_ROUTES.length;
  const listed = POS_ROUTES.reduce((n, r) => n + codesOf(r).size, 0);
  const seen = new Set(answered.map((a) => `${a.operationId} ${a.code}`)).size;
  return `${operations} operations, ${listed} (operation, code) pairs listed, ${seen} answered by the tests`;
}
