import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http, { STATUS_CODES } from 'node:http';
import https, { type ServerOptions } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { ConfigError } from './config';
import { problem } from './problem';
import type { TlsSettings } from './settings/http';

export type { TlsSettings };

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError([`${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`]);
  }
}

/**
 * `https.createServer` options from the settings. With a client CA the server
 * asks every connection for a certificate; when one is required, a connection
 * without a certificate that CA signed fails in the handshake and never reaches
 * the app.
 */
export function tlsServerOptions(s: TlsSettings): ServerOptions {
  const options: ServerOptions = {
    cert: readPem('TLS_CERT_FILE', s.certFile),
    key: readPem('TLS_KEY_FILE', s.keyFile),
    minVersion: 'TLSv1.2',
  };
  if (s.clientCaFile) {
    options.ca = readPem('TLS_CLIENT_CA_FILE', s.clientCaFile);
    options.requestCert = true;
    options.rejectUnauthorized = s.clientCertRequired;
  }
  return options;
}

/**
 * The names a verified client certificate carries: the subject CN, then each
 * DNS subject alternative name. Empty when the connection is not TLS, sent no
 * certificate, or sent one the configured CA did not sign.
 */
export function verifiedClientNames(socket: Socket): string[] {
  const tls = socket as Partial<TLSSocket>;
  if (!tls.encrypted || !tls.authorized || typeof tls.getPeerCertificate !== 'function') return [];
  const cert = tls.getPeerCertificate();
  if (!cert || !cert.subject) return [];
  const names: string[] = [];
  const cn = (cert.subject as unknown as Record<string, string | string[] | undefined>).CN;
  if (typeof cn === 'string') names.push(cn);
  else if (Array.isArray(cn)) names.push(...cn);
  for (const entry of (cert.subjectaltname ?? '').split(',')) {
    const m = /^\s*DNS:(.+?)\s*$/.exec(entry);
    if (m) names.push(m[1]);
  }
  return [...new Set(names)];
}

export interface AppServerOptions {
  tls?: TlsSettings;
  /** Largest total size of a request's headers (node `maxHeaderSize`). */
  maxHeaderBytes: number;
  /** The app refuses more than this many headers (see headerCountLimit); not enforced here. */
  maxHeaderCount: number;
}

/**
 * An HTTP or HTTPS server for `handler` with bounded headers. Requests node
 * refuses before the app sees them (headers too large, unparseable) still get
 * a problem+json answer instead of a bare status line.
 */
export function createAppServer(handler: http.RequestListener, o: AppServerOptions): http.Server {
  const base = { maxHeaderSize: o.maxHeaderBytes };
  const server: http.Server = o.tls ? https.createServer({ ...base, ...tlsServerOptions(o.tls) }, handler) : http.createServer(base, handler);
  // The app counts headers and answers 431 naming the limit. Node's own cap would
  // silently drop the extra ones (Host among them, for some clients); the byte
  // limit above already bounds how many can arrive.
  server.maxHeadersCount = 0;
  server.on('clientError', answerClientError);
  return server;
}

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const refusal = tooLarge
    ? problem('headers_too_large', 'The request headers are larger than this server accepts')
    : timeout
      ? problem('request_timeout', 'The request was not received in time')
      : problem('malformed_request', 'The request is not valid HTTP');
  const { status, code } = refusal;
  // No request was parsed, so no request id reached us: make one here; the errorId is the error's own, as the error handler's is.
  const body = JSON.stringify({
    type: `urn:pos-loyalty:problem:${code}`,
    title: STATUS_CODES[status],
    status,
    detail: refusal.message,
    code,
    requestId: randomUUID(),
    errorId: refusal.id,
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
