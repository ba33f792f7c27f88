import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AuthenticationError } from '../../platform/errors';
import { silentLogger } from '../../platform/logger';
import { problem } from '../../platform/problem';
import type { ProblemCodeWithStatus } from '../../platform/problem-catalogue';
import { verifiedClientNames } from '../../platform/tls';
import type { AuthFailureGuard } from './failure-guard';
import type { TerminalRegistry, Verification } from '../terminals/registry';
import type { TerminalIdentity } from '../terminals/types';

export interface TerminalAuthOptions {
  /** Used when the request has no pino-http logger of its own. */
  logger?: Logger;
  /** Counts failures per source address; an address over its limit gets 429 before its token is looked at. */
  failures?: AuthFailureGuard;
  /**
   * Accept a verified TLS client certificate (mTLS) instead of a bearer token:
   * its subject CN, or one of its DNS subject alternative names, is the terminal id.
   */
  clientCertificates?: boolean;
}

// RFC 6750: the scheme is case-insensitive; the token is one run of token68 characters.
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/** The terminal calling this request; set by terminalAuth. A route reached without it is a wiring bug. */
export function identityOf(res: Response): TerminalIdentity {
  const identity = (res.locals as { identity?: TerminalIdentity }).identity;
  if (!identity) throw problem('identity_missing', 'Route reached without terminal authentication');
  return identity;
}

/** Every 401 of the catalogue is a refusal of the terminal's credentials. */
type RefusalCode = ProblemCodeWithStatus<401>;

interface Refusal {
  code: RefusalCode;
  message: string;
  /** For the log line only. */
  reason: string;
  terminalId?: string;
}

const INVALID_TOKEN: Omit<Refusal, 'reason'> = { code: 'invalid_token', message: 'The terminal token is not valid (unknown or revoked)' };

function refuse(res: Response, code: RefusalCode, message: string): AuthenticationError {
  // RFC 6750 section 3: no error attribute when no credentials were sent at all.
  res.setHeader('WWW-Authenticate', code === 'missing_token' ? 'Bearer realm="pos"' : `Bearer realm="pos", error="invalid_token"`);
  return problem(code, message);
}

function fromToken(registry: TerminalRegistry, header: string | undefined): Verification | Refusal {
  if (header === undefined || header.trim() === '') {
    return { code: 'missing_token', reason: 'missing_token', message: 'This route needs a terminal token: Authorization: Bearer <token>' };
  }
  const match = BEARER.exec(header);
  if (!match)
    return { code: 'malformed_authorization', reason: 'malformed_authorization', message: 'The Authorization header must be "Bearer <terminal token>"' };
  const result = registry.verify(match[1]);
  return result.ok ? result : { ...INVALID_TOKEN, reason: result.reason, terminalId: result.terminalId };
}

/**
 * A verified client certificate names exactly one terminal. A bearer token sent
 * alongside must be that terminal's own: two credentials never add up to more.
 */
function fromCertificate(registry: TerminalRegistry, names: string[], header: string | undefined): Verification | Refusal {
  const found = names.map((n) => registry.verifyTerminalId(n)).filter((v) => v.ok || v.terminalId !== undefined);
  const ids = new Set(found.map((v) => (v.ok ? v.identity.terminal.id : v.terminalId)));
  const message = 'The client certificate does not name exactly one usable terminal';
  if (ids.size !== 1)
    return { code: 'invalid_client_certificate', message, reason: ids.size ? 'certificate_names_several_terminals' : 'certificate_names_no_terminal' };
  const cert = found[0];
  if (!cert.ok) return { code: 'invalid_client_certificate', message, reason: cert.reason, terminalId: cert.terminalId };
  if (header === undefined) return cert;
  const token = fromToken(registry, header);
  if ('code' in token) return token;
  if (!token.ok) return { ...INVALID_TOKEN, reason: token.reason };
  if (token.identity.terminal.id !== cert.identity.terminal.id) {
    return {
      code: 'credentials_disagree',
      message: 'The bearer token and the client certificate name different terminals',
      reason: 'credentials_disagree',
      terminalId: cert.identity.terminal.id,
    };
  }
  return cert;
}

/**
 * `Authorization: Bearer <terminal token>` (or a verified client certificate,
 * when enabled) on every `/pos/v1` route. Any failure is a 401; the log line
 * names the source address and the reason, never the token. An address with
 * too many recent failures is refused with 429 before anything is checked.
 */
export function terminalAuth(registry: TerminalRegistry, options: TerminalAuthOptions = {}): RequestHandler {
  const { failures } = options;
  return async (req: Request, res: Response, next) => {
    const log = (req as { log?: Logger }).log ?? options.logger ?? silentLogger;
    // req.ip is the socket's address, or with TRUST_PROXY the till's address as the balancer forwarded it.
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const from = { remoteAddress: address, method: req.method, path: req.path };
    if (failures) {
      const wait = await failures.blockedFor(`address:${address}`);
      if (wait !== undefined) {
        log.warn({ ...from, reason: 'too_many_auth_failures' }, 'terminal authentication refused');
        return next(
          problem('too_many_auth_failures', `More than ${failures.limit} failed authentications from this address in a minute; try again in ${wait} s`, {
            retryAfterSeconds: wait,
          }),
        );
      }
    }
    const header = req.headers.authorization;
    const names = options.clientCertificates ? verifiedClientNames(req.socket) : [];
    const outcome = names.length ? fromCertificate(registry, names, header) : fromToken(registry, header);
    if ('code' in outcome || !outcome.ok) {
      const refusal = 'code' in outcome ? outcome : { ...INVALID_TOKEN, reason: outcome.reason, terminalId: outcome.terminalId };
      log.warn(
        { ...from, reason: refusal.reason, terminalId: refusal.terminalId, via: names.length ? 'certificate' : 'token' },
        'terminal authentication failed',
      );
      // Counted against the terminal when the credential named one (a revoked till, a certificate), so its neighbours behind one address are not blocked.
      await failures?.record(refusal.terminalId ? `terminal:${refusal.terminalId}` : `address:${address}`);
      return next(refuse(res, refusal.code, refusal.message));
    }
    res.locals.identity = outcome.identity;
    // From here on, every line of this request names the till and its store.
    const { terminal, store } = outcome.identity;
    (req as { log?: Logger }).log = log.child({ terminalId: terminal.id, storeId: store.id, role: terminal.role });
    next();
  };
}
