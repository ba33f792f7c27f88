import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { FEATURES } from '../../src/platform/settings';
import { defaultOf, settingsIn } from '../../src/platform/settings/define';
import { ReadinessSchema } from '../../src/pos/answers';

/**
 * docs/operator/running.md: the settings, defaults, readiness states and log messages
 * it quotes are the program's, its sizing arithmetic holds for the defaults and the
 * shipped compose.yaml, and each test it cites exists with the titles it quotes.
 */
const REPO = path.join(__dirname, '../..');
const doc = readFileSync(path.join(REPO, 'docs/operator/running.md'), 'utf8');
const settings = new Map(Object.values(FEATURES).flatMap((f) => settingsIn(f.settings).map((s) => [s.variable, s] as const)));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

it('names only settings that exist, with their defaults', () => {
  const named = new Set([...doc.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+|NODE_ENV|PORT)`/g)].map((m) => m[1]));
  expect(named.size).toBeGreaterThan(10);
  expect([...named].filter((v) => !settings.has(v))).toEqual([]);
  const defaults = [...doc.matchAll(/`([A-Z_]+)`, default (\d+)/g)];
  expect(defaults.map((m) => m[1]).sort()).toEqual(['SHUTDOWN_GRACE_SECONDS', 'SHUTDOWN_TIMEOUT_MS']);
  for (const [, variable, value] of defaults) expect([variable, defaultOf(settings.get(variable)!.schema)]).toEqual([variable, Number(value)]);
});

it('lists every readiness check, each with states the answer can carry', () => {
  const rows = [...doc.matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)].map((m) => [m[1], m[2]]);
  const checks = ReadinessSchema.shape.checks.shape;
  const states = ReadinessSchema.shape.checks.shape.process.options;
  for (const [check, state] of rows) expect([check, check in checks, states.includes(state as never)]).toEqual([check, true, true]);
  expect([...new Set(rows.map(([check]) => check))].sort()).toEqual(Object.keys(checks).sort());
  expect(rows).toContainEqual(['process', 'shutting_down']);
});

it('quotes log messages the program writes', () => {
  const source = sources(path.join(REPO, 'src'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const quoted = [...doc.matchAll(/`((?:shutdown|ready:|not ready:|Start-up failed)[^`]*)`/g)].map((m) => m[1].replace(/(\s*\(?\.\.\.\)?)+$/, ''));
  expect(quoted.length).toBeGreaterThanOrEqual(7);
  for (const message of quoted) expect([message, source.includes(message)]).toEqual([message, true]);
});

it('shows the configuration report as the program writes it', () => {
  const line = JSON.parse(/```json\n(.*)\n```/.exec(doc)![1]) as { level: number; problems: { setting: string; problem: string }[]; msg: string };
  expect(line.level).toBe(60);
  for (const p of line.problems) expect(p.problem.startsWith(`${p.setting}: `)).toBe(true);
  expect(line.msg).toBe(`Invalid configuration: ${line.problems.length} problems, each naming its setting and what to do; nothing started`);
});

it('sizes the stop timeouts as it says: grace + drain + a margin fits 30 s, which compose.yaml gives the BFF', () => {
  const grace = defaultOf(settings.get('SHUTDOWN_GRACE_SECONDS')!.schema) as number;
  const drainS = (defaultOf(settings.get('SHUTDOWN_TIMEOUT_MS')!.schema) as number) / 1000;
  expect(doc).toContain(`With the defaults, ${grace} + ${drainS} + 5 = ${grace + drainS + 5}`);
  expect(grace + drainS + 5).toBeLessThanOrEqual(30);
  const compose = parse(readFileSync(path.join(REPO, 'compose.yaml'), 'utf8')) as { services: { bff: { stop_grace_period: string } } };
  expect(compose.services.bff.stop_grace_period).toBe('30s');
  expect(doc).toContain('`stop_grace_period: 30s`');
});

it('cites tests that exist, with the titles it quotes', () => {
  const cited = [...doc.matchAll(/`(test\/[\w./-]+\.test\.ts)`((?:\s*"[^"]+")*)/g)];
  expect(cited.length).toBeGreaterThanOrEqual(10);
  for (const [, file, titles] of cited) {
    expect([file, existsSync(path.join(REPO, file))]).toEqual([file, true]);
    const source = readFileSync(path.join(REPO, file), 'utf8');
    for (const [, title] of titles.matchAll(/"([^"]+)"/g)) expect([file, title, source.includes(title)]).toEqual([file, title, true]);
  }
});
