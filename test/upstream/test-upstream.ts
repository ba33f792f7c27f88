import http, { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/logger';
import { LoyaltyClient, LoyaltyClientOptions } from '../../src/upstream';

/**
 * A tiny real HTTP server the test scripts answer by answer, for the edges the
 * sandbox cannot produce (bad bodies, redirects, dropped connections, stalls).
 */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Which TCP connection carried it (1-based). */
  connection: number;
}

export type Answer = (res: ServerResponse, seen: Seen, req: IncomingMessage) => void;

export class TestUpstream {
  readonly seen: Seen[] = [];
  connections = 0;
  private answers: Answer[] = [];
  private fallback: Answer = json(500, { code: 5000, type: 'InternalError', message: 'no answer scripted', requestId: 'x' });

  private constructor(private readonly server: http.Server) {
    server.on('connection', (socket) => {
      this.connections += 1;
      (socket as unknown as { n: number }).n = this.connections;
    });
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const seen: Seen = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          connection: (req.socket as unknown as { n: number }).n,
        };
        this.seen.push(seen);
        (this.answers.shift() ?? this.fallback)(res, seen, req);
      });
    });
  }

  /** Not listening yet: `listen()` before the first request. */
  static create(): TestUpstream {
    return new TestUpstream(http.createServer({ keepAliveTimeout: 5000 }));
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers for the next requests, in order; after them, `always` (or a 500). */
  script(...answers: Answer[]): this {
    this.answers = answers;
    return this;
  }

  always(answer: Answer): this {
    this.fallback = answer;
    return this;
  }

  /**
   * Forgets the last test. Open connections are cut so that a request the last
   * test gave up on cannot arrive late and take this test's scripted answer.
   */
  reset(): void {
    this.server.closeAllConnections();
    this.seen.length = 0;
    this.answers = [];
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The file's upstream: listening before its first test, reset before each test, closed after the last. */
export function useTestUpstream(): TestUpstream {
  const upstream = TestUpstream.create();
  beforeAll(() => upstream.listen());
  afterAll(() => upstream.close());
  beforeEach(() => upstream.reset());
  return upstream;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

export function loyaltyError(status: number, code: number, type: string, message: string, headers: Record<string, string> = {}): Answer {
  return json(status, { code, type, message, requestId: 'up-123' }, headers);
}

/** Closes the connection without any answer. */
export const drop: Answer = (res) => res.socket?.destroy();

/** Never answers (until the server closes). */
export const stall: Answer = () => undefined;

/**
 * Client timeout for tests that script a `stall` and then count or order what
 * arrived. Client and server share one event loop, so on a busy CI machine a
 * 100 ms timeout could fire before the server had read the request.
 */
export const STALL_TIMEOUT_MS = 1000;

export const API_KEY = 'test-api-key-5d1c';
export const SECRET_KEY = 'test-secret-key-9f2e7a41';

/** A logger writing JSON lines into `lines`, at debug. */
export function captureLogger(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', pretty: false, destination }), lines };
}

export function makeClient(
  upstream: TestUpstream,
  overrides: Partial<LoyaltyClientOptions> = {},
): { client: LoyaltyClient; delays: number[]; lines: string[] } {
  const delays: number[] = [];
  const { logger, lines } = captureLogger();
  const client = new LoyaltyClient({
    baseUrl: upstream.baseUrl,
    apiKey: API_KEY,
    secretKey: SECRET_KEY,
    timeoutMs: 2000,
    retries: 2,
    logger,
    // Waits are recorded, not slept: tests stay fast and can assert them.
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return { client, delays, lines };
}

/** Runs `fn`, expecting a throw, and returns what was thrown. */
export async function failure(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}
