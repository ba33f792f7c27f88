import { createHash } from 'node:crypto';
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
  /**
   * Counts failures per presented credential (per source address for requests
   * that present none); one over its limit gets 429 before it is looked at.
   */
  failures?: AuthFailureGuard;
  /**
   * Counts every failure per source address, whatever was presented; once over
   * its (higher) limit, failing requests from the address get 429 instead of 401.
   * Looked at only after a request failed, so a valid token is never refused by it.
   */
  addressFailures?: AuthFailureGuard;
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
 * What a failure counts against: a digest of the credentials presented (the
 * Authorization header, the certificate's names), so one device retrying an
 * old token locks out only that token, never its neighbours behind the same
 * address; a request with no credentials at all counts against its address.
 * The digest is keyed apart from the terminals file's token hashes and is
 * never the token: it goes into limiter keys and, shortened, into the log.
 */
function failureKey(header: string | undefined, names: string[], address: string): { key: string; credential?: string } {
  if (names.length === 0 && (header === undefined || header.trim() === '')) return { key: `address:${address}` };
  const digest = createHash('sha256')
    .update(`pos-auth-failure\n${[...names].sort().join('\n')}\n${header ?? ''}`)
    .digest('hex');
  return { key: `credential:${digest.slice(0, 40)}`, credential: digest.slice(0, 12) };
}

/**
 * `Authorization: Bearer <terminal token>` (or a verified client certificate,
 * when enabled) on every `/pos/v1` route. Any failure is a 401; the log line
 * names the source address, the reason and a short digest of the credential,
 * never the token. A credential (or, without one, an address) with too many
 * recent failures is refused with 429 before anything is checked.
 */
export function terminalAuth(registry: TerminalRegistry, options: TerminalAuthOptions = {}): RequestHandler {
  const { failures } = options;
  return async (req: Request, res: Response, next) => {
    const log = (req as { log?: Logger }).log ?? options.logger ?? silentLogger;
    // req.ip is the socket's address, or with TRUST_PROXY the till's address as the balancer forwarded it.
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const header = req.headers.authorization;
    const names = options.clientCertificates ? verifiedClientNames(req.socket) : [];
    const { key, credential } = failureKey(header, names, address);
    const from = { remoteAddress: address, credential, method: req.method, path: req.path };
    if (failures) {
      const wait = await failures.blockedFor(key);
      if (wait !== undefined) {
        log.warn({ ...from, reason: 'too_many_auth_failures' }, 'terminal authentication refused');
        const what = credential ? 'with these credentials' : 'without credentials from this address';
        return next(
          problem('too_many_auth_failures', `More than ${failures.limit} failed authentications ${what} in a minute; try again in ${wait} s`, {
            retryAfterSeconds: wait,
          }),
        );
      }
    }
    const outcome = names.length ? fromCertificate(registry, names, header) : fromToken(registry, header);
    if ('code' in outcome || !outcome.ok) {
      const refusal = 'code' in outcome ? outcome : { ...INVALID_TOKEN, reason: outcome.reason, terminalId: outcome.terminalId };
      log.warn(
        { ...from, reason: refusal.reason, terminalId: refusal.terminalId, via: names.length ? 'certificate' : 'token' },
        'terminal authentication failed',
      );
      await failures?.record(key);
      const { addressFailures } = options;
      if (addressFailures && credential) {
        await addressFailures.record(`address:${address}`);
        const wait = await addressFailures.blockedFor(`address:${address}`);
        if (wait !== undefined) {
          log.warn({ ...from, reason: 'too_many_auth_failures_from_address' }, 'terminal authentication refused');
          return next(
            problem(
              'too_many_auth_failures',
              `More than ${addressFailures.limit} failed authentications from this address in a minute; try again in ${wait} s`,
              {
                retryAfterSeconds: wait,
              },
            ),
          );
        }
      }
      return next(refuse(res, refusal.code, refusal.message));
    }
    res.locals.identity = outcome.identity;
    // From here on, every line of this request names the till and its store.
    const { terminal, store } = outcome.identity;
    (req as { log?: Logger }).log = log.child({ terminalId: terminal.id, storeId: store.id, role: terminal.role });
    next();
  };
}
