import { readFileSync, writeFileSync } from 'node:fs';
import request from 'supertest';
import { revokeTerminal } from '../../src/pos/terminals';
import { startStack, Stack } from '../support/e2e';
import { total } from '../metrics/prometheus';
import { waitFor } from './helpers';

/**
 * A reload of TERMINALS_FILE that fails keeps the terminals loaded before,
 * so a revocation written since is not applied: readiness says `stale` (still
 * ready: every instance reads the file), a gauge and a counter show it, one log line names it; a fixed file
 * brings it all back. Over real HTTP; the file is looked at on the probes
 * themselves (at most once a second), so the tests wait for the answers.
 */
describe('a terminals file that fails to reload (real HTTP)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  const readyz = () => request(s.bff.url).get('/readyz');
  const scrape = async () => (await request(s.bff.url).get('/metrics').expect(200)).text;
  const unusableLines = () => s.logs.filter((l) => l.includes('terminals file unusable'));

  it('is stale but still ready (one bad edit must not take the fleet out), counted and logged once; a fixed file recovers and applies the revocation written meanwhile', async () => {
    expect((await readyz().expect(200)).body.checks.terminals).toBe('ok');
    let text = await scrape();
    expect([total(text, 'pos_terminals_file_current'), total(text, 'pos_terminals_file_reload_failures_total')]).toEqual([1, 0]);

    const good = readFileSync(s.terminalsFile, 'utf8');
    writeFileSync(s.terminalsFile, '{ "stores": [');
    let answer: request.Response | undefined;
    await waitFor('readiness to show the failed reload', async () => (answer = await readyz()).body.checks.terminals === 'stale', 20_000);
    expect(answer!.status).toBe(200);
    expect(answer!.body.status).toBe('ready');
    text = await scrape();
    expect([total(text, 'pos_terminals_file_current'), total(text, 'pos_terminals_file_reload_failures_total')]).toEqual([0, 1]);
    // The terminals loaded before are still served: the cashier's token is known (200, not 401).
    await s.pos('cashier').get('/redemption-options').expect(200);
    // One line per failed change, not per probe (test/pos/terminals/registry.test.ts looks several times on its own clock).
    expect(unusableLines()).toHaveLength(1);
    expect(JSON.parse(unusableLines()[0])).toMatchObject({ level: 50, problem: expect.stringMatching(/not valid JSON/) });

    // The fix: the good file, with the cashier revoked while the broken one was in place.
    writeFileSync(s.terminalsFile, good);
    revokeTerminal(s.terminalsFile, s.terminalIds.cashier);
    await waitFor('readiness to recover', async () => (answer = await readyz()).body.checks.terminals === 'ok', 20_000);
    expect(answer!.body.checks.terminals).toBe('ok');
    text = await scrape();
    expect([total(text, 'pos_terminals_file_current'), total(text, 'pos_terminals_file_reload_failures_total')]).toEqual([1, 1]);
    await s.pos('cashier').get('/redemption-options').expect(401);
    expect(unusableLines()).toHaveLength(1);
  });
});
