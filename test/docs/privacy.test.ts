import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/platform/config';
import { PROBLEM_CATALOGUE } from '../../src/platform/problem-catalogue';
import { CustomerDeletedSchema } from '../../src/pos/customers/schemas';
import { customerPseudonym, pseudonymKey } from '../../src/pos/privacy/pseudonym';

/**
 * docs/operator/privacy.md: its settings, code, pseudonym and counts are what
 * the code has. What erasure does to each store is checked on real Redis and
 * the memory stores by test/e2e/customer-erasure.test.ts.
 */
const doc = readFileSync('docs/operator/privacy.md', 'utf8');

describe('docs/operator/privacy.md', () => {
  it('names the settings with their defaults and bounds', () => {
    expect(doc).toContain('`ERASURE_SECOND_PASS_SECONDS` (default 120 s)');
    expect(loadConfig({}).audit.erasureSecondPassSeconds).toBe(120);
    expect(doc).toContain('`CUSTOMER_PSEUDONYM_KEY` (32 characters or more');
    expect(() => loadConfig({ CUSTOMER_PSEUDONYM_KEY: 'x'.repeat(31) })).toThrow(/CUSTOMER_PSEUDONYM_KEY/);
    expect(loadConfig({ CUSTOMER_PSEUDONYM_KEY: 'x'.repeat(32) }).audit.pseudonymKey).toBe('x'.repeat(32));
  });

  it('says the refusal code as the catalogue has it', () => {
    expect(doc).toContain('`409 customer_has_open_work`');
    expect(PROBLEM_CATALOGUE.customer_has_open_work.status).toBe(409);
  });

  it('describes the pseudonym as it is made: stable, keyed, erased- and 24 hex characters; unset, derived from the loyalty secret key', () => {
    expect(doc).toContain('`erased-` and 24 hex characters: HMAC-SHA256 of the customer id');
    const key = 'k'.repeat(32);
    expect(customerPseudonym(key, 'alice')).toMatch(/^erased-[0-9a-f]{24}$/);
    expect(customerPseudonym(key, 'alice')).toBe(customerPseudonym(key, 'alice'));
    expect(customerPseudonym(key, 'alice')).not.toBe(customerPseudonym('m'.repeat(32), 'alice'));
    expect(pseudonymKey(key, 'secret-1')).toBe(key);
    expect(pseudonymKey(undefined, 'secret-1')).not.toBe(pseudonymKey(undefined, 'secret-2'));
  });

  it("lists a row for each count of the deletion's `erased` answer", () => {
    const rows: Record<string, string> = {
      redemptions: '| Redemptions',
      couponLocks: '| Coupon locks',
      sales: '| Sale and refund records',
      otpTickets: '| OTP tickets',
      outboxEntries: '| Outbox entries',
      keptAnswers: '| Kept answers for an Idempotency-Key',
      tillAnswers: '| Read-back answers of a 202',
      auditEntries: '| The audit trail',
    };
    expect(Object.keys(CustomerDeletedSchema.shape.erased.shape).sort()).toEqual(Object.keys(rows).sort());
    for (const row of Object.values(rows)) expect(doc).toContain(row);
  });
});
