import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { Logger, LoggerOptions } from 'pino';

/**
 * Paths that can carry a secret. pino removes them before a line is written,
 * so neither the loyalty secret key nor a terminal token reaches a log.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.apikey',
  'req.headers.secretkey',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.apikey',
  'headers.secretkey',
  'headers.authorization',
  'config.headers.apikey',
  'config.headers.secretkey',
  'err.config.headers.secretkey',
  'err.config.headers.apikey',
  '*.config.headers.secretkey',
  '*.config.headers.apikey',
  '*.secretKey',
  '*.apiKey',
  '*.token',
  '*.secretkey',
  '*.apikey',
  'secretKey',
  'token',
  '*.tokens',
  'tokens',
  '*.password',
];

/**
 * Who a request is for, added to every log line written while it is handled,
 * whichever logger writes it (route, operation, upstream client). Entered per
 * request by `enterLogContext` (src/pos/http/log-context.ts), mounted after
 * terminal auth, which has put the terminal, its store and its role on the response.
 */
export interface LogContext {
  requestId?: string;
  terminalId?: string;
  storeId?: string;
  role?: string;
  /** X-Cashier-Id and X-Shift-Id, when the till sent them. */
  cashierId?: string;
  shiftId?: string;
}

const logContext = new AsyncLocalStorage<LogContext>();

/** Runs `fn` (and everything it starts) with `ctx` on its log lines. */
export function runWithLogContext<T>(ctx: LogContext, fn: () => T): T {
  return logContext.run({ ...ctx }, fn);
}

/** Adds fields to the current request's log context; a no-op outside one. */
export function addLogContext(fields: LogContext): void {
  const current = logContext.getStore();
  if (current) Object.assign(current, fields);
}

export function currentLogContext(): LogContext | undefined {
  return logContext.getStore();
}

const chindings = pino.symbols.chindingsSym as unknown as string;

/** The context fields a line does not already carry (as a binding of a child logger or in the call). */
function contextMixin(mergeObject: object, _level: number, logger: Logger): object {
  const ctx = logContext.getStore();
  if (!ctx) return {};
  const bound = String((logger as unknown as Record<string, unknown>)[chindings] ?? '');
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx)) {
    if (v === undefined || k in mergeObject || bound.includes(`"${k}":`)) continue;
    out[k] = v;
  }
  return out;
}

export interface LoggerSettings {
  level: string;
  pretty: boolean;
  /** Where lines go; defaults to stdout. Tests pass a stream to scan for secrets. */
  destination?: pino.DestinationStream;
  name?: string;
}

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    name: settings.name,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    mixin: contextMixin,
  };
  if (settings.destination) return pino(options, settings.destination);
  if (settings.pretty) {
    try {
      require.resolve('pino-pretty');
    } catch {
      throw new Error(
        'LOG_PRETTY=true needs pino-pretty, a development dependency that is not installed here (a production install); unset LOG_PRETTY for JSON lines',
      );
    }
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino(options);
}

/** A logger that writes nothing, for tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
