import http from 'node:http';
import https from 'node:https';

/**
 * A small HTTP client for hostile requests: exact bytes, exact headers, no
 * JSON encoding or path normalisation of its own, keep-alive for speed.
 */
export interface RawRequest {
  method: string;
  /** Sent as is (already percent-encoded where it should be). */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed body when it is JSON. */
  json?: unknown;
  /** Set when no HTTP answer came back (reset, hang-up, timeout). */
  error?: string;
}

export interface RawClientOptions {
  localAddress?: string;
  /** For HTTPS: the CA to trust, and a client certificate to present. */
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  timeoutMs?: number;
}

export interface RawClient {
  send(r: RawRequest): Promise<RawResponse>;
  close(): void;
}

export function rawClient(baseUrl: string, o: RawClientOptions = {}): RawClient {
  const url = new URL(baseUrl);
  const secure = url.protocol === 'https:';
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: 4, ca: o.ca, cert: o.cert, key: o.key })
    : new http.Agent({ keepAlive: true, maxSockets: 4 });
  const lib = secure ? https : http;
  return {
    send(r) {
      return new Promise((resolve) => {
        const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
        const headers: Record<string, string | string[]> = { ...(r.headers ?? {}) };
        if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['Content-Length'] = String(body.length);
        let req: http.ClientRequest;
        try {
          req = lib.request({
            host: url.hostname,
            port: url.port,
            method: r.method,
            path: r.path,
            headers,
            agent,
            localAddress: o.localAddress,
            timeout: o.timeoutMs ?? 15_000,
          });
        } catch (err) {
          resolve({ status: -1, headers: {}, text: '', error: `client refused to send: ${(err as Error).message}` });
          return;
        }
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
          res.on('error', (err) => resolve({ status: 0, headers: {}, text: '', error: err.message }));
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', (err) => resolve({ status: 0, headers: {}, text: '', error: `${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}` }));
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
