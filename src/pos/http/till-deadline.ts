import type { RequestHandler } from 'express';
import { PREFERENCE_APPLIED, setTillOf } from '../till-wait';

export { PREFERENCE_APPLIED } from '../till-wait';
import { TillWait } from '../../upstream';
import { identityOf } from '../auth';
import type { PosSettings } from '../settings';
import { storePolicy } from '../terminals/policy';

/** The longest wait honoured; a longer one is ignored (RFC 7240: a preference the server does not apply). */
export const MAX_TILL_WAIT_SECONDS = 120;
/** Taken off the till's time: writing the answer and its trip back to the till. */
export const ANSWER_MARGIN_MS = 200;

/**
 * The `wait` preference of RFC 7240 `Prefer` headers (`Prefer: wait=3`,
 * `Prefer: respond-async, wait=3`): whole seconds, 1..120; anything else is
 * ignored, as the RFC asks of a preference a server cannot apply. Hand-written:
 * one token with a delta-seconds value does not need a header-parsing library.
 */
export function preferredWait(header: string | string[] | undefined): number | undefined {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  for (const pref of values.flatMap((v) => v.split(','))) {
    const [token, ...rest] = pref.split(';')[0].split('=');
    if (token.trim().toLowerCase() !== 'wait') continue;
    const value = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (!/^\d{1,3}$/.test(value)) return undefined;
    const seconds = Number(value);
    return seconds >= 1 && seconds <= MAX_TILL_WAIT_SECONDS ? seconds : undefined;
  }
  return undefined;
}

/**
 * How long this till waits: its `Prefer: wait` (answered with
 * `Preference-Applied`), else its store's TILL_WAIT_SECONDS; neither: no
 * deadline. After terminal auth (the store decides the default).
 */
export function tillDeadline(settings: Pick<PosSettings, 'tillWaitSeconds'>, clock: () => number = Date.now): RequestHandler {
  return (req, res, next) => {
    const receivedAt = clock();
    const asked = preferredWait(req.headers.prefer);
    const seconds = asked ?? storePolicy(identityOf(res).store, { tillWaitSeconds: settings.tillWaitSeconds }).tillWaitSeconds;
    if (seconds !== undefined) {
      setTillOf(res, new TillWait(receivedAt + seconds * 1000 - ANSWER_MARGIN_MS, seconds, clock));
      if (asked !== undefined) res.setHeader(PREFERENCE_APPLIED, `wait=${asked}`);
    }
    next();
  };
}
