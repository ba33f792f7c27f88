import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler, Response } from 'express';

/**
 * Test-only: with POS_PROBLEM_TRACE_DIR set (jest's global setup sets it;
 * child processes inherit it), every problem this process answers on an
 * operation is appended as one JSON line {operationId, status, code} to a file
 * of its own there. The test run's teardown checks the lines against each
 * operation's documented codes (test/support/problem-codes.ts). Unset, nothing
 * is matched or written.
 */
const TRACE_DIR = process.env.POS_PROBLEM_TRACE_DIR;

interface Operation {
  method: string;
  path: string;
  operationId: string;
}

/** The Express path as a pattern: `:id` is one segment; matched as Express does (any case, an optional trailing slash). */
function pattern(expressPath: string): RegExp {
  const escaped = expressPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`, 'i');
}

/**
 * Names the operation a request is for on `res.locals.operationId`, before any
 * middleware can refuse it (so an auth or body refusal is traced to its route
 * too). The first entry that matches wins, as in `mountRoutes`.
 */
export function operationOfRequest(operations: readonly Operation[], prefix: string): RequestHandler {
  if (!TRACE_DIR) return (_req, _res, next) => next();
  const compiled = operations.map((o) => ({ method: o.method.toUpperCase(), re: pattern(prefix + o.path), operationId: o.operationId }));
  return (req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    res.locals.operationId = compiled.find((o) => o.method === method && o.re.test(req.path))?.operationId;
    next();
  };
}

/** Appends the answered problem to this process's trace file (only while tracing, only on an operation). */
export function traceProblem(res: Response, status: number, code: string): void {
  const operationId: unknown = res.locals.operationId;
  if (!TRACE_DIR || typeof operationId !== 'string') return;
  appendFileSync(path.join(TRACE_DIR, `${process.pid}.jsonl`), `${JSON.stringify({ operationId, status, code })}\n`);
}
