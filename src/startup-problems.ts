import type { Logger } from 'pino';
import { ConfigError, settingOf, type Config } from './platform/config';
import { productionProblems, redisDurability } from './platform/production';
import { readTerminalsFile } from './pos/terminals';

export type Mode = 'sandbox' | 'bff' | 'both';

/**
 * Everything start-up can find wrong before anything listens, gathered into one
 * report: the settings (readConfig's problems), what production refuses, a port
 * given to two listeners, a terminals file that does not load, and whether Redis
 * keeps its keys. Fixing one and restarting never reveals the next.
 */
export async function startupProblems(config: Config, settingProblems: string[], mode: Mode, logger: Logger): Promise<string[]> {
  if (mode === 'sandbox') return settingProblems;
  return [
    ...settingProblems,
    ...productionProblems(config),
    ...portClash(config, mode),
    ...terminalsFileProblems(config),
    ...(await redisDurability(config, logger)),
  ];
}

/** The bundled sandbox and the cashier API on one port: the second to bind would be blamed on the wrong setting. */
function portClash(config: Config, mode: Mode): string[] {
  const bundled = mode === 'both' && !config.loyalty.baseUrl;
  if (!bundled || config.http.port === 0 || config.http.port !== config.sandbox.port) return [];
  return [`SANDBOX_PORT: ${config.sandbox.port} is PORT too; the bundled sandbox and the cashier API need a port each: set SANDBOX_PORT (or PORT) to another`];
}

/** A terminals file that exists but does not load (unreadable, not JSON, a bad field); a missing one is a fresh install. */
function terminalsFileProblems(config: Config): string[] {
  try {
    readTerminalsFile(config.pos.terminalsFile);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((p) => `TERMINALS_FILE: ${p}`);
  }
}

/** One problem as the report lists it: the setting to change and what to do. */
export function problemEntries(problems: string[]): { setting: string; problem: string }[] {
  return problems.map((problem) => ({ setting: settingOf(problem) ?? '(unknown)', problem }));
}
