import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnvironmentFile, parseUnit, SETTING_NAMES, UNIT, UNIT_ENV } from './manifests';

/**
 * deploy/systemd: the unit is valid for systemd (systemd-analyze, with the app's directory put where
 * this checkout is, since verify wants ExecStart to exist), hardened, and stops within its limit.
 * debian-host.test.ts runs its ExecStart with the EnvironmentFile example.
 */
const text = readFileSync(UNIT, 'utf8');
const unit = parseUnit(text);
const service = unit.Service;
const single = (key: string) => {
  expect(service[key]).toHaveLength(1);
  return service[key][0];
};
const example = parseEnvironmentFile(readFileSync(UNIT_ENV, 'utf8'));
const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('deploy/systemd/pos-loyalty-bff.service', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'posbff-unit-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const here = path.join(tmp, 'pos-loyalty-bff.service');
  writeFileSync(here, text.replaceAll(single('WorkingDirectory'), process.cwd()));

  // Installed on this project's machines (systemd); skipped, and so named, where it is not.
  (hasAnalyze ? it : it.skip)('systemd-analyze verify finds nothing to say', () => {
    const r = spawnSync('systemd-analyze', ['verify', here], { encoding: 'utf8' });
    expect({ status: r.status, said: `${r.stdout}${r.stderr}`.trim() }).toEqual({ status: 0, said: '' });
  });

  (hasAnalyze ? it : it.skip)('systemd-analyze security rates its exposure low (under 2 of 10)', () => {
    const r = spawnSync('systemd-analyze', ['security', '--offline=true', here], { encoding: 'utf8' });
    const level = Number(/Overall exposure level for .*: ([\d.]+)/.exec(r.stdout)?.[1]);
    expect(level).toBeLessThan(2);
  });

  it('runs the launcher, as a user of its own, with the settings of its EnvironmentFile', () => {
    expect(single('User')).not.toMatch(/^(root|0)$/);
    expect(single('ExecStart')).toBe(`${single('WorkingDirectory')}/bin/pos-loyalty-bff`);
    expect(single('EnvironmentFile')).toMatch(/^\/etc\//);
    expect(Object.keys(example).filter((k) => !SETTING_NAMES.has(k))).toEqual([]);
    expect(example.NODE_ENV).toBe('production');
    // It writes only its state directory: the terminals and the reports are there.
    const state = `/var/lib/${single('StateDirectory')}/`;
    expect(example.TERMINALS_FILE.startsWith(state)).toBe(true);
    expect(example.RECONCILIATION_REPORT_DIR.startsWith(state)).toBe(true);
  });

  it('is hardened: no new privileges, a read-only system, no capabilities', () => {
    expect(service).toMatchObject({
      NoNewPrivileges: ['true'],
      ProtectSystem: ['strict'],
      ProtectHome: ['true'],
      PrivateTmp: ['true'],
      CapabilityBoundingSet: [''],
    });
    // V8 compiles code at run time: a unit that forbade it would never start.
    expect(service.MemoryDenyWriteExecute).toBeUndefined();
  });

  it('restarts on failure, not on a refused configuration, and stops with SIGTERM within more than grace + drain', () => {
    expect(single('Restart')).toBe('on-failure');
    expect(single('RestartPreventExitStatus')).toBe('2'); // src/main.ts and start-up's refusals exit 2
    expect(single('KillSignal')).toBe('SIGTERM');
    const grace = Number(example.SHUTDOWN_GRACE_SECONDS ?? 10);
    const drain = Number(example.SHUTDOWN_TIMEOUT_MS ?? 10_000) / 1000;
    expect(Number(single('TimeoutStopSec'))).toBeGreaterThan(grace + drain);
  });
});
