import { STATUS_CODES } from 'node:http';
import type { AppError } from '../../platform/errors';
import type { ErrorRenderer } from '../../platform/http';
import { requestIdOf } from '../../platform/http';
import { traceProblem } from './problem-trace';

/**
 * The BFF's one error shape: RFC 9457 problem details with a stable `code`,
 * the `requestId`, the `errorId` that is in the log line, and per-field
 * `errors` for validation failures. Never a stack, never an upstream body.
 */
export const renderProblem: ErrorRenderer = (err, req, res) => {
  const { status, body } = problemAnswer(err, requestIdOf(req));
  traceProblem(res, status, err.code);
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
};

/** The status and body `renderProblem` writes for `err`: also the stored answer of a request that ended after its till stopped waiting. */
export function problemAnswer(err: AppError, requestId: string): { status: number; body: Record<string, unknown> } {
  const status = err.status >= 500 && err.status !== 502 && err.status !== 503 && err.status !== 504 ? 500 : err.status;
  const body: Record<string, unknown> = {
    type: `urn:pos-loyalty:problem:${err.code}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail: err.message,
    code: err.code,
    requestId,
    errorId: err.id,
  };
  if (err.errors?.length) body.errors = err.errors;
  if (err.retryAfterSeconds !== undefined) body.retryAfterSeconds = Math.max(1, Math.ceil(err.retryAfterSeconds));
  if (err.extra) Object.assign(body, err.extra);
  return { status, body };
}
