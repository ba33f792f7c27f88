import { format } from 'node:util';
import type { Logger } from 'pino';

/**
 * What would reach stdout or stderr outside the logger, made log lines: Node's
 * own warnings (MaxListenersExceededWarning, DeprecationWarning, printed by
 * Node as plain text) and `console.*` in libraries (ioredis warns that way, e.g.
 * of a password a Redis without one was sent). A log pipeline reading JSON
 * lines would otherwise drop or mangle them.
 */

const held: Error[] = [];
const holdWarning = (w: Error) => void held.push(w);

/**
 * Called first thing (src/main.ts), before any library loads: Node's default
 * printer is removed and warnings are kept until a logger can write them.
 */
export function holdProcessWarnings(): void {
  process.removeAllListeners('warning');
  process.on('warning', holdWarning);
}

function logWarning(logger: Logger, w: Error): void {
  const code = (w as { code?: unknown }).code;
  logger.warn({ component: 'node', warning: { name: w.name, ...(typeof code === 'string' ? { code } : {}) } }, `${w.name}: ${w.message}`);
}

/** From now on Node's warnings and console output go through `logger`, held warnings first. */
export function routeStrayOutput(logger: Logger): void {
  process.removeAllListeners('warning');
  for (const w of held.splice(0)) logWarning(logger, w);
  process.on('warning', (w) => logWarning(logger, w));
  const console_ = logger.child({ component: 'console' });
  const to =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) =>
      console_[level](format(...args));
  console.log = to('info');
  console.info = to('info');
  console.debug = to('debug');
  console.warn = to('warn');
  console.error = to('error');
  console.trace = (...args: unknown[]) => console_.warn({ stack: new Error().stack }, format(...args));
}
