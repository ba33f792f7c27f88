import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StandInSettings } from '../../../src/platform/settings/stand-in';
import { loadTerminalsFile, TerminalRegistry, TOKEN_PATTERN } from '../../../src/pos/terminals';
import { raiseGeneration } from '../../../src/pos/terminals/file';
import { storePolicy } from '../../../src/pos/terminals/policy';

const ROOT = path.resolve(__dirname, '../../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a child process, as an operator would. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(TSX, ['scripts/terminal.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'terminals-cli-'));
  file = path.join(dir, 'terminals.json');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STORE_ARGS = ['--id', 'store-x', '--merchant-id', 'm-9', '--merchant-name', 'Acme', '--branch-id', 'b-9', '--branch-name', 'Quay'];

describe('scripts/terminal.ts', () => {
  it('adds a store and a terminal, prints the token once, lists without it, and revokes', async () => {
    const store = await cli(['add-store', ...STORE_ARGS, '--file', file]);
    expect(store).toMatchObject({ code: 0 });
    expect(store.stdout).toContain('Store store-x added');

    const added = await cli(['add', '--store', 'store-x', '--role', 'manager', '--label', 'office', '--id', 'till-9', '--file', file]);
    expect(added.code).toBe(0);
    const tokens = added.stdout.match(/pos_[A-Za-z0-9_-]+/g) ?? [];
    expect(tokens).toHaveLength(1);
    const token = tokens[0] ?? '';
    expect(token).toMatch(TOKEN_PATTERN);
    expect(readFileSync(file, 'utf8')).not.toContain(token);
    expect(new TerminalRegistry(file).authenticate(token)?.terminal).toMatchObject({ id: 'till-9', role: 'manager', label: 'office' });

    const listed = await cli(['list', '--file', file]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/till-9\s+store-x\s+manager\s+active\s+[0-9a-f]{8}\s/);
    expect(listed.stdout).not.toContain(token);
    expect(listed.stdout).not.toMatch(/[0-9a-f]{9,}/); // no more than 8 hex characters of any hash

    const revoked = await cli(['revoke', 'till-9', '--file', file]);
    expect(revoked.code).toBe(0);
    expect(new TerminalRegistry(file).authenticate(token)).toBeNull();
    expect((await cli(['list', '--file', file])).stdout).toMatch(/till-9\s+store-x\s+manager\s+revoked/);
    expect((await cli(['revoke', 'till-9', '--file', file])).stdout).toContain('already revoked');
  });

  it('uses TERMINALS_FILE when no --file is given, and --json gives the token to a script', async () => {
    const other = path.join(dir, 'from-env.json');
    expect((await cli(['add-store', ...STORE_ARGS], { TERMINALS_FILE: other })).code).toBe(0);
    const added = await cli(['add', '--store', 'store-x', '--role', 'kiosk', '--json'], { TERMINALS_FILE: other });
    const body = JSON.parse(added.stdout);
    expect(body).toMatchObject({ storeId: 'store-x', role: 'kiosk' });
    expect(new TerminalRegistry(other).authenticate(body.token)?.terminal.id).toBe(body.terminalId);
    const listed = JSON.parse((await cli(['list', '--json'], { TERMINALS_FILE: other })).stdout);
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('tokenSha256');
  });

  it('exits 2 with the usage on bad arguments, naming what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [[], /no command given/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['add', '--role', 'cashier'], /missing --store/],
      [['add', '--store', 'store-x', '--role', 'boss'], /--role must be one of cashier, manager, kiosk/],
      [['add', '--store', 'store-x', '--role', 'cashier', '--colour', 'red'], /Unknown option '--colour'/],
      [['list', '--grace', '1m'], /list does not take --grace/],
      [['list', '--active', '--revoked'], /--active and --revoked exclude each other/],
      [['revoke'], /revoke needs one argument/],
      [['revoke', 'a', 'b'], /unexpected argument "b"/],
      [['rotate', 'till-9', '--grace', '10 minutes'], /--grace must be a number with s, m, h or d/],
      [['export', '--what', 'hashes'], /--what must be terminals or stores/],
      [['edit-store', 'store-x'], /edit-store needs something to change/],
      [['import'], /import needs at least one argument/],
      [['add-store', '--id', 'bad id!', '--merchant-id', 'm', '--merchant-name', 'M', '--branch-id', 'b', '--branch-name', 'B'], /id: must be 1-64/],
    ];
    // In parallel: each run is a tsx start-up, and they share nothing.
    const runs = await Promise.all(cases.map(([args]) => cli([...args, '--file', file])));
    runs.forEach((run, i) => {
      expect({ args: cases[i][0], code: run.code, stdout: run.stdout }).toEqual({ args: cases[i][0], code: 2, stdout: '' });
      expect(run.stderr).toMatch(cases[i][1]);
      expect(run.stderr).toContain('usage: npm run terminal --');
    });
  });

  it("edit-store sets a store's stand-in values in one write, takes them back with default, and refuses a bad one by its option", async () => {
    const own = path.join(dir, 'stand-in.json');
    expect((await cli(['add-store', ...STORE_ARGS, '--file', own])).code).toBe(0);
    const { token } = JSON.parse((await cli(['add', '--store', 'store-x', '--role', 'cashier', '--json', '--file', own])).stdout);
    raiseGeneration(own, 0); // a fleet's file: every write counts one
    // The fleet's settings; what a till of the store works by is read from the store the BFF authenticates it to.
    const FLEET: StandInSettings = { mode: 'off', afterSeconds: 30, seenMinutes: 15, maxPointsPerCustomer: 300, maxPointsPerStore: 5000, approvalMinutes: 5 };
    const policy = () => storePolicy(new TerminalRegistry(own).authenticate(token)!.store, { standIn: FLEET }).standIn;
    const edit = (...args: string[]) => cli(['edit-store', 'store-x', ...args, '--file', own]);
    const standIn = () => loadTerminalsFile(own).stores[0].standIn;

    const set = await edit(
      ...['--stand-in', 'ON', '--stand-in-after-seconds', '60', '--stand-in-seen-minutes', '30'],
      ...['--stand-in-max-points-per-customer', '200', '--stand-in-max-points-per-store', '2000', '--stand-in-approval-minutes', '0'],
    );
    expect(set).toMatchObject({ code: 0, stderr: '' });
    const all = { mode: 'on', afterSeconds: 60, seenMinutes: 30, maxPointsPerCustomer: 200, maxPointsPerStore: 2000, approvalMinutes: 0 };
    expect(standIn()).toEqual(all);
    expect(loadTerminalsFile(own).generation).toBe(2); // six values, one write
    expect(policy()).toEqual(all);

    // One value taken back: the setting again for it, the store's own for the rest.
    expect((await edit('--stand-in-seen-minutes=default', '--stand-in-approval-minutes', 'default')).code).toBe(0);
    expect(standIn()).toEqual({ mode: 'on', afterSeconds: 60, maxPointsPerCustomer: 200, maxPointsPerStore: 2000 });
    expect(policy()).toEqual({ ...all, seenMinutes: 15, approvalMinutes: 5 });

    // A bad value (alone or among good ones): exit 2 naming the option, the file untouched.
    const before = readFileSync(own, 'utf8');
    const bad: [string[], string][] = [
      [['--stand-in', 'yes'], '--stand-in yes: Invalid option: expected one of "off"|"on"'],
      [['--stand-in-after-seconds', '3601'], '--stand-in-after-seconds 3601: Too big'],
      [['--stand-in-seen-minutes', '0'], '--stand-in-seen-minutes 0: Too small'],
      [['--stand-in-max-points-per-customer', 'lots'], '--stand-in-max-points-per-customer must be a whole number or default; got "lots"'],
      [['--stand-in-max-points-per-store=-1'], '--stand-in-max-points-per-store -1: Too small'],
      [['--stand-in-approval-minutes', '61'], '--stand-in-approval-minutes 61: Too big'],
      [['--stand-in', 'off', '--stand-in-seen-minutes', '1441'], '--stand-in-seen-minutes 1441: Too big'],
    ];
    const refused = await Promise.all(bad.map(([args]) => edit(...args)));
    refused.forEach((run, i) => {
      expect({ args: bad[i][0], code: run.code, stdout: run.stdout }).toEqual({ args: bad[i][0], code: 2, stdout: '' });
      expect(run.stderr).toContain(`error: ${bad[i][1]}`);
    });
    expect(readFileSync(own, 'utf8')).toBe(before);

    // The last own value taken back: no standIn left, the fleet's values throughout.
    const back = ['--stand-in', '--stand-in-after-seconds', '--stand-in-max-points-per-customer', '--stand-in-max-points-per-store'].map((o) => `${o}=default`);
    expect((await edit(...back)).code).toBe(0);
    expect(loadTerminalsFile(own).stores[0]).not.toHaveProperty('standIn');
    expect(policy()).toEqual(FLEET);
  });

  it('loses no terminal when several operators add at once', async () => {
    const shared = path.join(dir, 'parallel.json');
    expect((await cli(['add-store', ...STORE_ARGS, '--file', shared])).code).toBe(0);
    const runs = await Promise.all(
      Array.from({ length: 5 }, (_, i) => cli(['add', '--store', 'store-x', '--role', 'cashier', '--id', `p-${i}`, '--file', shared])),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    const registry = new TerminalRegistry(shared);
    expect(registry.terminalCount).toBe(5);
    for (const run of runs) expect(registry.authenticate(run.stdout.match(/pos_[A-Za-z0-9_-]+/)?.[0] ?? '')).not.toBeNull();
  });

  it('exits 1 with a clear message when the operation is refused', async () => {
    const unknownStore = await cli(['add', '--store', 'nowhere', '--role', 'cashier', '--file', file]);
    expect(unknownStore.code).toBe(1);
    expect(unknownStore.stderr).toContain('Store "nowhere" does not exist');
    const unknownTerminal = await cli(['revoke', 'ghost', '--file', file]);
    expect(unknownTerminal.code).toBe(1);
    expect(unknownTerminal.stderr).toContain('Terminal "ghost" does not exist');
  });

  it('loads only what the command needs: a list never loads the Redis client, the loyalty client or the report commands', async () => {
    const probe = [
      `require(${JSON.stringify(path.join(ROOT, 'src/pos/terminals/cli.ts'))}).runCli(['list', '--file', ${JSON.stringify(file)}])`,
      `.then(() => console.log(JSON.stringify(Object.keys(require.cache))))`,
    ].join('');
    const loaded = await new Promise<string[]>((resolve, reject) =>
      execFile(TSX, ['-e', probe], { cwd: ROOT }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout.trim().split('\n').pop()!)))),
    );
    expect(loaded.some((m) => m.includes('/src/pos/terminals/operations'))).toBe(true); // it did run the command
    expect(loaded.filter((m) => /node_modules\/(ioredis|axios|pino)\/|src\/(upstream|pos\/reconciliation)\//.test(m))).toEqual([]);
  });
});
