import { z } from 'zod';
import { bool, nonNegativeInt, port, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

/** HTTPS for the cashier API: PEM files, and whether terminals must present client certificates. */
export interface TlsSettings {
  certFile: string;
  keyFile: string;
  clientCaFile?: string;
  clientCertRequired: boolean;
}

const origins = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/, 'each origin must be scheme://host[:port], e.g. https://tablet.store.example')));

export const http = feature({
  title: 'BFF HTTP',
  settings: {
    host: setting('HOST', z.string().min(1).default('0.0.0.0'), {
      description: 'Interface the cashier API listens on; 0.0.0.0 is every interface (the store LAN).',
      readme: 'the interface the cashier API listens on',
    }),
    port: setting('PORT', port.default(8080), { description: 'Port of the cashier API.', readme: 'the port of the cashier API' }),
    bodyLimitBytes: setting('BODY_LIMIT_BYTES', positiveInt.max(10 * 1024 * 1024).default(256 * 1024), {
      description: 'Largest accepted request body, in bytes.',
      default: '262144 (256 KiB)',
    }),
    shutdownGraceSeconds: setting('SHUTDOWN_GRACE_SECONDS', nonNegativeInt.max(600).default(10), {
      description:
        'On SIGTERM/SIGINT: /readyz answers 503 at once and the cashier API keeps serving this long (every answer closing its ' +
        'connection), so a balancer polling /readyz every 2-5 s, ejecting after 2 failures, stops sending before the port closes; ' +
        'then the drain (SHUTDOWN_TIMEOUT_MS). A second signal ends the grace early. 0: drain at once (tests, development), in seconds.',
      readme: 'how long the cashier API keeps serving after SIGTERM, readiness already 503',
    }),
    shutdownTimeoutMs: setting('SHUTDOWN_TIMEOUT_MS', positiveInt.min(100).max(600_000).default(10_000), {
      description:
        'On SIGTERM/SIGINT, after SHUTDOWN_GRACE_SECONDS: in-flight requests get this long to finish (the drain) before the process gives up and exits 1, in milliseconds.',
    }),
    maxHeaderCount: setting('MAX_HEADER_COUNT', positiveInt.max(2000).default(100), {
      description: 'Most request headers accepted; more is refused with 431.',
    }),
    maxHeaderBytes: setting(
      'MAX_HEADER_BYTES',
      positiveInt
        .min(1024)
        .max(1024 * 1024)
        .default(16 * 1024),
      {
        description: "Largest total size of a request's headers, in bytes (1024..1048576); more is refused with 431.",
      },
    ),
    corsOrigins: setting('CORS_ORIGINS', origins.default([]), {
      description:
        'Browser origins (in-store tablet web apps) allowed to call /pos/v1, comma-separated, e.g. ' +
        'https://tablet.store.example,http://10.0.0.5:3000. Empty: CORS off (no browser origin allowed).',
      default: 'empty (CORS off)',
      readme: 'browser origins allowed, for in-store tablet web apps',
    }),
    tls: {
      certFile: setting('TLS_CERT_FILE', z.string().min(1).optional(), {
        description: 'PEM certificate (chain) of the cashier API: with TLS_KEY_FILE it serves HTTPS.',
        default: 'plain HTTP',
        readme: 'HTTPS for the cashier API, with `TLS_KEY_FILE`',
      }),
      keyFile: setting('TLS_KEY_FILE', z.string().min(1).optional(), {
        description: 'PEM private key of TLS_CERT_FILE; set both or neither.',
        default: 'unset',
        readme: 'the private key of `TLS_CERT_FILE`',
      }),
      clientCaFile: setting('TLS_CLIENT_CA_FILE', z.string().min(1).optional(), {
        description:
          'PEM CA bundle that signs terminal client certificates (mTLS). A verified client certificate whose subject CN ' +
          '(or a DNS subject alternative name) equals a terminal id authenticates as that terminal, instead of a bearer ' +
          'token. Needs TLS_CERT_FILE and TLS_KEY_FILE.',
        default: 'no client certificates',
        readme: 'client certificates (mTLS) for terminals',
      }),
      clientCertRequired: setting('TLS_CLIENT_CERT_REQUIRED', bool.default(true), {
        description:
          'With TLS_CLIENT_CA_FILE: true = a connection without a valid client certificate is refused in the TLS ' +
          'handshake; false = client certificates are optional and bearer tokens still work.',
      }),
    },
  },
  read: ({ tls, ...http }, _deployment, problems) => {
    if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) problems.push('TLS_CERT_FILE and TLS_KEY_FILE: set both or neither');
    if (tls.clientCaFile && !tls.certFile) problems.push('TLS_CLIENT_CA_FILE: needs TLS_CERT_FILE and TLS_KEY_FILE (client certificates need HTTPS)');
    const { certFile, keyFile, clientCaFile, clientCertRequired } = tls;
    const https: TlsSettings | undefined = certFile && keyFile ? { certFile, keyFile, clientCaFile, clientCertRequired } : undefined;
    return { ...http, tls: https };
  },
});

export type HttpSettings = SliceOf<typeof http>;
