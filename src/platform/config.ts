import { existsSync } from 'node:fs';
import { addTerminalCommands, terminalCommand } from './operator-commands';
import { FEATURES, loyalty, environment, type Deployment, type Settings } from './settings';
import { claimLeaseProblem } from './settings/money';
import { settingsIn, valuesOf, type Feature } from './settings/define';

/**
 * Every setting of both programs, read once from the environment. Each
 * feature declares its own variables (src/platform/settings); this module
 * validates them together, so one start-up names every bad value, and checks
 * the rules that involve more than one feature. A bad value stops start-up
 * with a message naming the variable.
 */
export type Config = Settings;

const SETTINGS = Object.values(FEATURES).flatMap((f: Feature) => settingsIn(f.settings));

if (new Set(SETTINGS.map((s) => s.variable)).size !== SETTINGS.length) {
  throw new Error(
    `a variable is declared by two features: ${SETTINGS.map((s) => s.variable)
      .filter((v, i, all) => all.indexOf(v) !== i)
      .join(', ')}`,
  );
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Keys whose values are secrets: shown only as set or unset. */
const SECRET_KEY = /secret|password|token|credential/i;
/** Keys whose values identify an account: the first four characters and a mask. */
const PARTIAL_KEY = /apiKey(Next)?$/i;

/**
 * A URL's password masked, whether or not the URL parses: a password with an
 * unencoded `/`, `#` or `?` defeats the parser, so the user info is taken as
 * everything between `://` and the last `@`. The user name stays readable.
 */
export function maskUrl(value: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)(.*)@/i.exec(value);
  if (!m || !m[2].includes(':')) return value;
  return `${m[1]}${m[2].slice(0, m[2].indexOf(':'))}:***@${value.slice(m[0].length)}`;
}

/** A list item as start-up shows it: host:port for Redis nodes. */
function listItem(v: unknown): string {
  if (v && typeof v === 'object' && 'host' in v && 'port' in v) return `${String(v.host)}:${String(v.port)}`;
  return String(v);
}

function shown(key: string, value: unknown): string {
  if (value === undefined || value === null) return '(unset)';
  if (SECRET_KEY.test(key)) return '(set)';
  if (PARTIAL_KEY.test(key)) return `${String(value).slice(0, 4)}****`;
  if (Array.isArray(value)) return value.length ? value.map(listItem).join(',') : '(none)';
  if (typeof value === 'string') return value === '' ? '""' : maskUrl(value);
  return String(value);
}

/** Every setting as `section.key` -> the value as start-up shows it (secrets masked). */
export function configSummary(config: Partial<Config>): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (obj: object, prefix: string) => {
    for (const [k, v] of Object.entries(obj) as [string, unknown][]) {
      const name = prefix ? `${prefix}.${k}` : k;
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v, name);
      else out[name] = shown(k, v);
    }
  };
  walk(config, '');
  return out;
}

/**
 * The settings that differ from what an empty environment gives (NODE_ENV
 * and what follows from it included), as configSummary shows them: the
 * start-up log line stays short on every restart, and says what this
 * deployment chose.
 */
export function changedSettings(config: Partial<Config>): Record<string, string> {
  const defaults = configSummary(loadConfig({}));
  return Object.fromEntries(Object.entries(configSummary(config)).filter(([name, value]) => defaults[name] !== value));
}

/** The slices of the configuration a mode uses: the sandbox alone has nothing of the BFF's to show, a BFF with its own upstream no sandbox. */
export function settingsOfMode(config: Config, mode: 'sandbox' | 'bff' | 'both'): Partial<Config> {
  const { env, log, sandbox, ...bff } = config;
  if (mode === 'sandbox') return { env, log, sandbox };
  if (mode === 'bff' || config.loyalty.baseUrl) return { env, log, ...bff };
  return config;
}

/**
 * The effective configuration on one screen: one line per section, secrets
 * masked (`(set)`, `sbx_****`, Redis passwords as `***`), long sections wrapped.
 */
export function describeConfig(config: Partial<Config>, width = 110): string[] {
  const sections = new Map<string, string[]>();
  for (const [name, value] of Object.entries(configSummary(config))) {
    // Two levels make a section (`upstream.budget`); deeper names stay in the key (`limits.events.rate`), so nested settings share lines.
    const parts = name.split('.');
    const [section, key] =
      parts.length === 1 ? [name, ''] : [parts.slice(0, Math.min(2, parts.length - 1)).join('.'), parts.slice(Math.min(2, parts.length - 1)).join('.')];
    sections.set(section, [...(sections.get(section) ?? []), key ? `${key}=${value}` : value]);
  }
  const pad = Math.max(...[...sections.keys()].map((s) => s.length)) + 2;
  const lines = ['Effective configuration (secrets masked):'];
  for (const [section, all] of sections) {
    const items = withRatesJoined(all);
    let line = `  ${section.padEnd(pad)}`;
    for (const item of items) {
      if (line.trim().length > section.length && line.length + item.length + 1 > width) {
        lines.push(line.trimEnd());
        line = ' '.repeat(pad + 2);
      }
      line += `${item} `;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/** A limit's `x.rate=R` and `x.quota=Q` shown as one item, `x=R/s,Q` (the budget's buckets), so the summary fits a screen. */
function withRatesJoined(items: string[]): string[] {
  const quotas = new Map<string, string>();
  for (const item of items) {
    const m = /^(.+)\.quota=(.*)$/.exec(item);
    if (m) quotas.set(m[1], m[2]);
  }
  const joined = new Set<string>();
  const out = items.flatMap((item) => {
    const m = /^(.+)\.rate=(.*)$/.exec(item);
    if (!m || !quotas.has(m[1])) return [item];
    joined.add(m[1]);
    return [`${m[1]}=${m[2]}/s,${quotas.get(m[1])}`];
  });
  return out.filter((item) => !joined.has(/^(.+)\.quota=/.exec(item)?.[1] ?? ''));
}

/** The variables the last loadDotEnv took from its file (not those the environment already had), and that file. */
const fromDotEnv = { file: '', variables: new Set<string>() };

/**
 * Reads `.env` (or `file`) into process.env with Node's own parser; a variable
 * already in the environment wins. A missing file is no error: `.env` is optional.
 * Returns the file read, or undefined.
 */
export function loadDotEnv(file = '.env'): string | undefined {
  if (!existsSync(file)) return undefined;
  const before = new Set(Object.keys(process.env));
  try {
    process.loadEnvFile(file);
  } catch (err) {
    throw new ConfigError([`${file}: cannot be read (${(err as Error).message})`]);
  }
  fromDotEnv.file = file;
  fromDotEnv.variables = new Set(Object.keys(process.env).filter((k) => !before.has(k)));
  return file;
}

/** `LOG_LEVEL: ...` -> `LOG_LEVEL (from .env): ...` when .env gave it: the fix is in that file, not the environment. */
function withOrigin(problem: string, source: NodeJS.ProcessEnv): string {
  if (source !== process.env) return problem;
  const variable = /^([A-Z][A-Z0-9_]*)[:. ]/.exec(problem)?.[1];
  return variable && fromDotEnv.variables.has(variable) ? `${variable} (from ${fromDotEnv.file})${problem.slice(variable.length)}` : problem;
}

const terminalAdd = (config: Config) =>
  `add a terminal instead:\n${addTerminalCommands(terminalCommand(config.pos.terminalCommand), config.pos.terminalsFile)
    .map((c) => `      ${c}`)
    .join('\n')}`;

/**
 * Rules between features: what production refuses (trial conveniences that
 * would weaken a store) and demo terminals, which only the bundled sandbox can serve.
 */
function crossFeatureProblems(config: Config, source: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const production = config.env === 'production';
  if (source.LOYALTY_OTP_ENABLED !== undefined && source.LOYALTY_OTP_ENABLED !== '') {
    problems.push(
      "LOYALTY_OTP_ENABLED: no longer a setting; the BFF follows the loyalty account (the sandbox account's setting, or the real service's answers). Remove it",
    );
  }
  if (config.pos.demoSetup && config.loyalty.baseUrl)
    problems.push(`DEMO_SETUP: demo terminals are only for the bundled sandbox; with LOYALTY_BASE_URL ${terminalAdd(config)}`);
  if (config.pos.demoSetup && production) problems.push(`DEMO_SETUP: never in production (NODE_ENV=production); ${terminalAdd(config)}`);
  if (config.log.pretty && production) {
    problems.push(
      'LOG_PRETTY: readable logs need pino-pretty, a development dependency that production builds leave out; unset LOG_PRETTY (JSON lines) and pipe the output through pino-pretty where you read it',
    );
  }
  if (config.loyalty.allowHttp && production) {
    problems.push('LOYALTY_ALLOW_HTTP: never in production (NODE_ENV=production); the secret key must travel over HTTPS: use an https:// LOYALTY_BASE_URL');
  }
  const lease = claimLeaseProblem(config.money.claimLeaseSeconds, config.loyalty);
  if (lease) problems.push(lease);
  if (config.ops.port !== undefined && config.ops.port !== 0 && config.ops.port === config.http.port) {
    problems.push(`OPS_PORT: ${config.ops.port} is PORT too; the ops listener needs a port of its own, away from the tills`);
  }
  if (config.pos.terminalsShared === 'redis' && !config.redis.target)
    problems.push('TERMINALS_SHARED: redis needs a Redis (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES) to publish the terminals to');
  return problems;
}

/** A problem's leading variable (`REDIS_URL: ...`, `LOG_LEVEL (from .env): ...`), the setting an operator fixes. */
export function settingOf(problem: string): string | undefined {
  return /^([A-Z][A-Z0-9_]*)\b/.exec(problem)?.[1];
}

/**
 * Every setting read, and every problem found, at once: a variable that does not
 * parse is named and its default stands in, so the features' own rules and the
 * rules between them are still checked and one start-up lists everything to fix.
 * A rule that names a variable already reported bad is left out: its verdict
 * would be about the stand-in, not the value given.
 */
export function readConfig(source: NodeJS.ProcessEnv = process.env): { config: Config; problems: string[] } {
  // Empty strings mean "unset", as they do in most .env files.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const env: Record<string, unknown> = {};
  const invalid: string[] = [];
  const bad = new Set<string>();
  for (const s of SETTINGS) {
    const parsed = s.schema.safeParse(cleaned[s.variable]);
    if (parsed.success) {
      env[s.variable] = parsed.data;
      continue;
    }
    bad.add(s.variable);
    invalid.push(...parsed.error.issues.map((i) => `${[s.variable, ...i.path].join('.')}: ${i.message}`));
    const fallback = s.schema.safeParse(undefined);
    env[s.variable] = fallback.success ? fallback.data : undefined;
  }
  const deployment: Deployment = { env: valuesOf(environment.settings, env).nodeEnv, bundledSandbox: !valuesOf(loyalty.settings, env).baseUrl };
  const derived: string[] = [];
  const config = Object.fromEntries(
    Object.entries(FEATURES).map(([name, f]: [string, Feature]) => [name, f.read(valuesOf(f.settings, env), deployment, derived)]),
  ) as Config;
  derived.push(...crossFeatureProblems(config, source));
  const aboutBad = (p: string) => [...bad].some((v) => new RegExp(`\\b${v}\\b`).test(p));
  const problems = [...invalid, ...derived.filter((p) => !aboutBad(p))].map((p) => withOrigin(p, source));
  return { config, problems };
}

/** The configuration, or a ConfigError listing every problem readConfig found. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const { config, problems } = readConfig(source);
  if (problems.length) throw new ConfigError(problems);
  return config;
}
