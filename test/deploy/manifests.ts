import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { FEATURES } from '../../src/platform/settings';
import { settingsIn } from '../../src/platform/settings/define';

export const K8S_DIR = 'deploy/k8s';
export const UNIT = 'deploy/systemd/pos-loyalty-bff.service';
export const UNIT_ENV = 'deploy/systemd/pos-loyalty-bff.env.example';

/** Every variable the program reads as a setting. */
export const SETTING_NAMES = new Set(Object.values(FEATURES).flatMap((f) => settingsIn(f.settings).map((s) => s.variable)));

/** The documents of every manifest in deploy/k8s, as plain objects. */
export function k8sDocuments(): any[] {
  return readdirSync(K8S_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(path.join(K8S_DIR, f), 'utf8')).map((d) => d.toJS()));
}

/** What kubernetes-models says of each document of `files` (it is ESM only: see k8s-models.mts). */
export function validateWithModels(files: string[]): { file: string; kind: string; name: string; errors: string[] }[] {
  const loader = path.resolve('node_modules/tsx/dist/loader.mjs');
  const out = execFileSync(process.execPath, ['--import', loader, path.join(__dirname, 'k8s-models.mts'), ...files], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** A systemd unit file as `section -> key -> values` (a key may repeat). */
export function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const unit: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1];
      unit[section] ??= {};
      continue;
    }
    const eq = line.indexOf('=');
    (unit[section][line.slice(0, eq)] ??= []).push(line.slice(eq + 1));
  }
  return unit;
}

/** A systemd EnvironmentFile (KEY=value lines, `#` comments, optional quotes) as variables. */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]] = m[2].trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return env;
}
