import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { loadTerminalsFile, TerminalRegistry } from '../../src/pos/terminals';
import { publishRegistry, sharedGeneration } from '../../src/pos/terminals/shared';
import { docBlock, runBash } from '../store/readme-blocks';
import { deleteKeys, uniquePrefix } from '../support/redis';

/**
 * docs/operator/terminals.md: its commands run as written (`npm run terminal -- ...`, in a directory of their
 * own whose package.json runs this checkout's CLI), and what it says about them is checked on what they did.
 */
const ROOT = path.resolve(__dirname, '../..');
const DOC = path.join(ROOT, 'docs/operator/terminals.md');
const block = (heading: string, nth = 0) => docBlock(DOC, heading, nth);

let dir: string;
let file: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'terminals-doc-'));
  file = path.join(dir, 'terminals.json');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, scripts: { terminal: `tsx ${path.join(ROOT, 'scripts/terminal.ts')}` } }));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  env = { ...process.env, TERMINALS_FILE: file, TERMINALS_SHARED: '', npm_config_loglevel: 'silent' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (script: string, extra: NodeJS.ProcessEnv = {}) => runBash(script, { cwd: dir, env: { ...env, ...extra }, timeoutMs: 120_000 });
function cli(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'scripts/terminal.ts'), ...args], { cwd: dir, env: { ...env, ...extra } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}
const storeOf = (id: string) => loadTerminalsFile(file).stores.find((s) => s.id === id);
const terminalOf = (id: string) => loadTerminalsFile(file).terminals.find((t) => t.id === id);

describe('docs/operator/terminals.md', () => {
  it('everyday commands: the token printed once and stored only as its hash, lists filtered, a revoke', async () => {
    const { stdout } = await run(block('## Everyday commands'));
    const tokens: string[] = stdout.match(/pos_[A-Za-z0-9_-]{43}/g) ?? [];
    expect(tokens).toHaveLength(2);
    expect(readFileSync(file, 'utf8')).not.toContain(String(tokens[0]));
    expect(stdout).toMatch(/till-003-1\s+store-003\s+cashier\s+active\s+[0-9a-f]{8}\s/);
    expect(stdout).not.toMatch(/[0-9a-f]{9,}/);
    // The filtered list (the second table) names the active cashier only.
    const tables = stdout.split(/^ID\s+STORE/m);
    expect(tables[2]).toContain('till-003-1');
    expect(tables[2]).not.toContain('office-003');
    expect(tables[1]).toContain('office-003');
    // The last, --revoked --json, names it revoked.
    const json = JSON.parse(stdout.slice(stdout.lastIndexOf('[\n')));
    expect(json).toEqual([expect.objectContaining({ id: 'till-003-1', status: 'revoked' })]);
    expect(new TerminalRegistry(file).verify(String(tokens[0]))).toMatchObject({ ok: false, reason: 'revoked' });
    expect(new TerminalRegistry(file).verify(String(tokens[1]))).toMatchObject({ ok: true });
    // TERMINALS_SHARED=file: no generation, the shape a previous release reads.
    expect(loadTerminalsFile(file)).not.toHaveProperty('generation');
  }, 120_000);

  it('stores: an edit, its stand-in values, its values taken back to the settings, and a removal that revokes the terminals with it', async () => {
    const [edit, standIn, back] = block('## Stores').trim().split('\n');
    await run(edit);
    expect(storeOf('store-003')).toMatchObject({ branch: { name: 'Mall, level 2' }, requireCashier: true, tillWaitSeconds: 20, redemptionCapPointsPerCustomerDay: 300 });
    await run(standIn);
    expect(storeOf('store-003')?.standIn).toEqual({ mode: 'on', seenMinutes: 30, maxPointsPerCustomer: 200, approvalMinutes: 0 });
    await run(back);
    expect(storeOf('store-003')).not.toHaveProperty('requireCashier');
    expect(storeOf('store-003')).not.toHaveProperty('tillWaitSeconds');
    expect(storeOf('store-003')).not.toHaveProperty('redemptionCapPointsPerCustomerDay');
    // The stand-in value named went back to its setting; the others it did not name stayed.
    expect(storeOf('store-003')?.standIn).toEqual({ mode: 'on', maxPointsPerCustomer: 200, approvalMinutes: 0 });
    // As the text says: a bad value named by its option, nothing written.
    const before = readFileSync(file, 'utf8');
    expect(await cli(['edit-store', 'store-003', '--stand-in', 'on', '--stand-in-approval-minutes', '90'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--stand-in-approval-minutes 90: Too big'),
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
    const refused = await cli(['remove-store', 'store-003']);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('not revoked (office-003)') });
    await run(block('## Stores'));
    expect(storeOf('store-003')).toBeUndefined();
    expect(terminalOf('office-003')?.revokedAt).toBeDefined();
  }, 120_000);

  it('rotation: a new token each time, the grace as said, at most 7 days', async () => {
    const { stdout } = await run(block('## Rotating a token'));
    expect(stdout).toMatch(/Its old token is accepted until \S+, then refused/);
    const json = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(json).toMatchObject({ terminalId: 'till-004-1', previousValidUntil: null });
    expect(new TerminalRegistry(file).verify(json.token)).toMatchObject({ ok: true });
    expect(terminalOf('till-004-1')).not.toHaveProperty('previousTokenSha256'); // --grace 0 dropped the earlier one
    expect(await cli(['rotate', 'till-004-1', '--grace', '8d'])).toMatchObject({ code: 2, stderr: expect.stringContaining('0 to 168 hours') });
  }, 120_000);

  it('import and export: tokens once to a new 0600 file, the same import again changes nothing, an export is no backup', async () => {
    const { stdout } = await run(block('## Bulk import and export'));
    expect(stdout).toContain('1 store(s) added, 0 already there; 3 terminal(s) added, 0 already there');
    expect(stdout).toContain('0 store(s) added, 1 already there; 0 terminal(s) added, 3 already there');
    expect(statSync(path.join(dir, 'new-tokens.csv')).mode & 0o777).toBe(0o600);
    const tokens = readFileSync(path.join(dir, 'new-tokens.csv'), 'utf8').trim().split('\n');
    expect(tokens[0]).toBe('terminal_id,store_id,role,token');
    expect(new TerminalRegistry(file).authenticate(tokens[3].split(',')[3])?.terminal.id).toBe('office-010');
    expect(stdout).toContain('store-010,demo-merchant,Demo Retail,branch-010,Harbour,true,,300,on,,,200,,');
    // The store's own cap and stand-in values, the rest left to the settings.
    expect(storeOf('store-010')).toEqual({
      id: 'store-010',
      merchant: { uniqueId: 'demo-merchant', name: 'Demo Retail' },
      branch: { uniqueId: 'branch-010', name: 'Harbour' },
      requireCashier: true,
      redemptionCapPointsPerCustomerDay: 300,
      standIn: { mode: 'on', maxPointsPerCustomer: 200 },
    });
    // A bad cell: its line and column, as the text shows.
    writeFileSync(path.join(dir, 'bad-stores.csv'), readFileSync(path.join(dir, 'stores.csv'), 'utf8').replace('store-010', 'store-011').replace(',on,,,', ',on,,1441,'));
    expect(await cli(['import', 'bad-stores.csv'])).toMatchObject({ code: 1, stderr: expect.stringContaining('bad-stores.csv line 2: stand_in_seen_minutes: Too big: ') });
    const exported = readFileSync(path.join(dir, 'terminals-now.csv'), 'utf8');
    expect(exported.split('\n')[0]).toBe('id,store_id,role,label,status,created_at,revoked_at,previous_valid_until');
    for (const t of loadTerminalsFile(file).terminals) expect(exported).not.toContain(t.tokenSha256.slice(0, 12));
    expect(await cli(['import', 'terminals-now.csv'])).toMatchObject({ code: 1, stderr: expect.stringContaining('unknown column(s) status, created_at, revoked_at, previous_valid_until') });
    expect(await cli(['import', 'terminals.csv', '--tokens', 'new-tokens.csv'])).toMatchObject({ code: 2, stderr: expect.stringContaining('exists') });
  }, 120_000);

  it('Redis loss: publish, a file behind Redis refused until --force, a hand edit published with a raised generation', async () => {
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    const prefix = uniquePrefix('terminals-doc');
    const fleet = { TERMINALS_SHARED: 'redis', REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
    try {
      expect(loadTerminalsFile(file)).not.toHaveProperty('generation');
      // The first publish gives the file its generation; from then on every change counts.
      expect((await run(block('## Redis loss (TERMINALS_SHARED=redis)'), fleet)).stdout).toContain('Published generation 1 to Redis');
      const generation = loadTerminalsFile(file).generation!;
      expect(generation).toBe(1);
      expect((await cli(['add', '--store', 'store-010', '--role', 'kiosk', '--id', 'kiosk-010'], fleet)).stdout).toContain('Published generation 2 to Redis');
      // Redis moved on without this file (another host's, or this is an old backup).
      await publishRegistry(redis, prefix, { ...loadTerminalsFile(file), generation: generation + 5 });
      const before = readFileSync(file, 'utf8');
      const refused = await cli(['revoke', 'till-010-1'], fleet);
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining(`Redis holds generation ${generation + 5}`) });
      expect(readFileSync(file, 'utf8')).toBe(before);
      expect((await cli(['publish', '--force'], fleet)).stdout).toContain(`Published generation ${generation + 6}`);
      // A hand edit keeps the generation; publish raises it, so every instance takes the edit.
      const edited = loadTerminalsFile(file);
      edited.stores[0].branch.name = 'Harbour East';
      writeFileSync(file, JSON.stringify(edited));
      expect((await cli(['publish'], fleet)).stdout).toContain(`Published generation ${generation + 7}`);
      expect(await sharedGeneration(redis, prefix)).toBe(generation + 7);
      expect((await cli(['publish'], fleet)).stdout).toContain('nothing to publish');
    } finally {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
  }, 120_000);
});
