/**
 * Writes the store manager guide's store-manager examples (the audit trail and the
 * reconciliation) from a real run: the bundled sandbox and a BFF in this
 * process, two stores, a short day with a lost answer and a void at the other
 * branch, then the manager's requests. Nothing in the block is typed by hand.
 * Run: npm run docs:manager-reports              (write docs/store-manager.md)
 *      npm run docs:manager-reports -- --check   (exit 1 when the store manager guide's block is not what a run makes, times and ids aside)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/platform/config';
import { silentLogger } from '../src/platform/logger';
import { auditText } from '../src/pos/audit/format';
import type { AuditEntry } from '../src/pos/audit/types';
import { startBff } from '../src/pos/server';
import { addStore, addTerminal } from '../src/pos/terminals';
import { loadSandboxAccounts, startSandbox } from '../src/sandbox';

export const BEGIN = '<!-- manager reports example -->';
export const END = '<!-- end of manager reports example -->';
const ROOT = path.resolve(__dirname, '..');

type Call = (method: string, p: string, body?: object, headers?: Record<string, string>) => Promise<{ status: number; body: unknown; text: string }>;

/** Runs the day and answers the README block (markdown). */
export async function generateManagerReports(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-manager-'));
  const terminalsFile = path.join(dir, 'terminals.json');
  const stores = [
    { id: 'store-001', merchant: { uniqueId: 'demo-merchant', name: 'Demo Retail' }, branch: { uniqueId: 'branch-001', name: 'Downtown' } },
    { id: 'store-002', merchant: { uniqueId: 'demo-merchant', name: 'Demo Retail' }, branch: { uniqueId: 'branch-002', name: 'Airport' } },
  ];
  for (const s of stores) addStore(terminalsFile, s);
  const token = (storeId: string, role: 'cashier' | 'manager', id: string) => addTerminal(terminalsFile, { storeId, role, id }).token;
  const tills = {
    till1: token('store-001', 'cashier', 'till-1'),
    till2: token('store-001', 'cashier', 'till-2'),
    manager: token('store-001', 'manager', 'office-1'),
    airport: token('store-002', 'manager', 'airport-office'),
  };
  const account = loadSandboxAccounts('config/sandbox-accounts.json')[0];
  const sandbox = await startSandbox({ accounts: [account], logger: silentLogger, port: 0 });
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    TERMINALS_FILE: terminalsFile,
    RETURNS_AT_ANY_BRANCH: 'true',
    // A lost answer: the loyalty service takes the sale after the BFF stopped waiting (1 s), and no retry settles it at once.
    LOYALTY_TIMEOUT_MS: '1000',
    LOYALTY_RETRIES: '0',
  });
  const bff = await startBff(config, { baseUrl: sandbox.url, apiKey: account.apiKey, secretKey: account.secretKey }, silentLogger);
  const keys = { apikey: account.apiKey, secretkey: account.secretKey, 'Content-Type': 'application/json' };
  let n = 0;
  const call =
    (tokenOf: string, cashier?: string): Call =>
    async (method, p, body, headers = {}) => {
      const res = await fetch(`${bff.url}/pos/v1${p}`, {
        method,
        headers: {
          Authorization: `Bearer ${tokenOf}`,
          'Content-Type': 'application/json',
          'X-Request-Id': `example-${++n}`,
          ...(method === 'POST' ? { 'Idempotency-Key': `example-key-${n}` } : {}),
          ...(cashier ? { 'X-Cashier-Id': cashier, 'X-Shift-Id': 'shift-am' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
    };
  const admin = async (method: string, p: string, body?: object) => {
    const res = await fetch(`${sandbox.url}/_sandbox${p}`, { method, headers: keys, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as Record<string, unknown>;
  };
  const hashOf = async (customerId: string) =>
    ((await (await fetch(`${sandbox.url}/api/v4.0/integrations/customers/${customerId}/hash`, { headers: keys })).json()) as { hash: string }).hash;
  const expect = <T extends { status: number; text: string }>(what: string, got: T, status: number): T => {
    if (got.status !== status) throw new Error(`${what}: ${got.status} ${got.text}`);
    return got;
  };
  try {
    const anna = call(tills.till1, 'anna-07');
    const omar = call(tills.till2, 'omar-02');
    const office = call(tills.manager, 'mona-01');
    const airport = call(tills.airport, 'karim-04');
    await admin('POST', '/customers', { customerId: 'bob-3', points: 0 });
    await admin('POST', '/customers', { customerId: 'walk-in-7', points: 500 });

    // Anna: demo-customer redeems 200 points on a 150 sale, pays 130; a second sale on the same redemption is refused.
    const held = expect('redeem', await anna('POST', '/redemptions', { customerId: 'demo-customer', hash: await hashOf('demo-customer'), points: 200 }), 201);
    const redemptionId = (held.body as { id: string }).id;
    expect(
      'pay',
      await anna('POST', '/payments', { customerId: 'demo-customer', paymentId: 'sale-1001', totalPaid: 130, totalAmount: 150, redemptionId }),
      201,
    );
    expect(
      'refused',
      await anna('POST', '/payments', { customerId: 'demo-customer', paymentId: 'sale-1002', totalPaid: 130, totalAmount: 150, redemptionId }),
      409,
    );
    // Omar: a sale to bob-3, and one to walk-in-7 with 100 points whose answer is lost (the loyalty service takes it after 1.5 s).
    expect('bob', await omar('POST', '/payments', { customerId: 'bob-3', paymentId: 'sale-1003', totalPaid: 40 }), 201);
    const walkIn = expect('redeem 2', await omar('POST', '/redemptions', { customerId: 'walk-in-7', hash: await hashOf('walk-in-7'), points: 100 }), 201);
    await admin('PUT', '/faults', { rules: [{ operation: 'payment', latencyMs: 1500, times: 1 }] });
    const lost = { customerId: 'walk-in-7', paymentId: 'sale-1004', totalPaid: 45, totalAmount: 55, redemptionId: (walkIn.body as { id: string }).id };
    expect('lost', await omar('POST', '/payments', lost), 503);
    await admin('DELETE', '/faults');
    // The lost answer is settled from the loyalty service's record by the BFF itself (the till does not send it again).
    const repairs = bff.deps.repairs as unknown as { size: number };
    for (let i = 0; i < 100 && repairs.size > 0; i++) await new Promise((r) => setTimeout(r, 100));
    if (repairs.size > 0) throw new Error('the lost answer was not settled in 10 s');
    // The manager refunds half of Anna's sale; the airport store voids bob-3's sale (returns at any branch).
    expect('refund', await office('POST', '/refunds', { customerId: 'demo-customer', refundId: 'refund-1001', paymentId: 'sale-1001', amount: 65 }), 201);
    expect('void', await airport('POST', '/payments/sale-1003/void', { customerId: 'bob-3' }), 200);

    const day = new Date(bff.deps.clock()).toISOString().slice(0, 10);
    const question = `/audit?date=${day}&customerId=demo-customer&action=redemption_start,otp_step,payment`;
    const audit = expect('audit', await office('GET', question), 200).body as { entries: (Omit<AuditEntry, 'at'> & { at: string })[] };
    const all = expect('audit all', await office('GET', `/audit?date=${day}`), 200).body as { entries: (Omit<AuditEntry, 'at'> & { at: string })[] };
    const printout = expect('reconciliation', await office('GET', `/reconciliation?date=${day}&format=print`), 200).text;
    const text = auditText(
      all.entries.map((e) => ({ ...e, at: Date.parse(e.at) })),
      'UTC',
    );
    return [
      BEGIN,
      '',
      '```bash',
      `# Which cashier redeemed demo-customer's points on ${day}? One request, from a manager terminal of the store:`,
      `curl -s "$BFF/audit?date=${day}&customerId=demo-customer&action=redemption_start,otp_step,payment" -H "Authorization: Bearer $MANAGER_TOKEN"`,
      '```',
      '',
      '```json',
      JSON.stringify({ ...(audit as object), entries: audit.entries }, null, 2),
      '```',
      '',
      `The day's trail as the terminal CLI prints it (\`npm run terminal -- audit --store store-001 --date ${day}\`; the same entries as \`GET /audit?date=${day}\`):`,
      '',
      '```',
      text.trimEnd(),
      '```',
      '',
      `The day's reconciliation for the till printer (\`GET /reconciliation?date=${day}&format=print\`, or \`npm run terminal -- reconcile --store store-001 --date ${day}\`):`,
      '',
      '```',
      printout.trimEnd(),
      '```',
      '',
      END,
    ].join('\n');
  } finally {
    await bff.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The guide with its example block replaced. */
export function withManagerReports(readme: string, block: string): string {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/store-manager.md has no ${BEGIN} ... ${END} block`);
  return readme.slice(0, start) + block + readme.slice(end + END.length);
}

/**
 * What changes from run to run taken out: times, dates, random ids and the
 * stream ids made of times; lines compared as a set (two repairs of one sale
 * settle in either order).
 */
export function normalised(text: string): string {
  const lines = text
    .replace(/\d{4}-\d{2}-\d{2}(T[\d:.]+Z| \d\d:\d\d(:\d\d)?)?/g, 'DATE')
    .replace(/\b\d\d:\d\d\b/g, 'HH:MM')
    .replace(/\b(rdm|cpl|obx)_[A-Za-z0-9_-]+/g, '$1_ID')
    .replace(/"id": "\d+-\d+"/g, '"id": "ID"')
    .replace(/ +/g, ' ')
    .split('\n');
  return lines.sort().join('\n');
}

if (require.main === module) {
  void (async () => {
    const file = path.join(ROOT, 'docs', 'store-manager.md');
    const readme = readFileSync(file, 'utf8');
    const block = await generateManagerReports();
    if (process.argv.includes('--check')) {
      const current = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END) + END.length);
      if (normalised(current) !== normalised(block)) {
        console.error('docs/store-manager.md: the store-manager examples are not what a run makes; run npm run docs:manager-reports');
        process.exit(1);
      }
      console.log('docs/store-manager.md store-manager examples are up to date');
    } else {
      writeFileSync(file, withManagerReports(readme, block));
      console.log('Wrote the store-manager examples in docs/store-manager.md');
    }
  })();
}
