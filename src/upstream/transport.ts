import http from 'node:http';
import https from 'node:https';
import axios, { AxiosInstance, isAxiosError } from 'axios';
import { fromTransportFailure, timedOut } from './errors';
import { aborted } from './retry';

export interface TransportSettings {
  baseUrl: string;
  /** Upper bound of parallel connections per agent; keeps a burst from opening hundreds of sockets. */
  maxSockets: number;
  /** Bodies larger than this are refused as invalid, never buffered whole. */
  maxResponseBytes: number;
}

export interface Exchange {
  method: 'GET' | 'POST' | 'DELETE';
  /** Already encoded, below the base URL. */
  path: string;
  query?: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** An HTTP answer of any status, body unparsed. */
export interface RawAnswer {
  status: number;
  retryAfter?: string;
  text: string;
}

/**
 * One HTTP exchange with the loyalty service over keep-alive connections.
 * Answers of every status come back as data; only a missing answer (refused,
 * reset, timeout) throws, already as a platform error.
 */
export class Transport {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly axios: AxiosInstance;

  constructor(settings: TransportSettings) {
    const agentOptions = { keepAlive: true, maxSockets: settings.maxSockets, maxFreeSockets: Math.min(settings.maxSockets, 16) };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
    this.axios = axios.create({
      baseURL: settings.baseUrl.replace(/\/+$/, ''),
      httpAgent: this.httpAgent,
      httpsAgent: this.httpsAgent,
      // A redirect means a wrong base URL; following it could send the keys elsewhere.
      maxRedirects: 0,
      // Explicit: environment proxy variables must not silently reroute the keys.
      proxy: false,
      validateStatus: () => true,
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      maxContentLength: settings.maxResponseBytes,
      transitional: { clarifyTimeoutError: true, silentJSONParsing: false, forcedJSONParsing: false },
    });
  }

  async send(x: Exchange): Promise<RawAnswer> {
    // Our own wall-clock timer covers connect, send and reading the whole body.
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), x.timeoutMs);
    const signal = x.signal ? AbortSignal.any([x.signal, timer.signal]) : timer.signal;
    try {
      const res = await this.axios.request<string>({
        method: x.method,
        url: x.path,
        params: x.query,
        headers: x.headers,
        data: x.body === undefined ? undefined : JSON.stringify(x.body),
        timeout: x.timeoutMs,
        signal,
      });
      const retryAfter: unknown = res.headers['retry-after'];
      return { status: res.status, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined, text: typeof res.data === 'string' ? res.data : '' };
    } catch (err) {
      if (x.signal?.aborted) throw aborted();
      if (timer.signal.aborted) throw timedOut(x.timeoutMs);
      if (isAxiosError(err)) throw fromTransportFailure(err.code, err.message, x.timeoutMs);
      throw err;
    } finally {
      clearTimeout(timeout);
    }
  }

  /** Destroys the kept-alive sockets; for shutdown and tests, after in-flight calls are done. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
