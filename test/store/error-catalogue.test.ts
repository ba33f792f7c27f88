import { readFileSync } from 'node:fs';
import { buildPosOpenApi } from '../../src/pos/openapi';
import { catalogueEntries, catalogueTable } from '../../src/platform/problem-catalogue';
import { scanCodes } from './code-scan';

/** One error catalogue (issue 14, item 6): the source, the OpenAPI document and the README agree. */
describe('the error catalogue', () => {
  const found = scanCodes();
  const catalogue = new Map<string, { status: number }>(catalogueEntries().map((e) => [e.code, e]));

  it('finds the codes in the source at all (the scan itself works)', () => {
    expect(found.size).toBeGreaterThan(60);
    for (const code of ['proof_required', 'invalid_token', 'redemption_customer_mismatch', 'headers_too_large', 'hash_invalid']) expect(found.has(code)).toBe(true);
  });

  it('lists every code the BFF can throw', () => {
    const missing = [...found.keys()].filter((c) => !catalogue.has(c));
    expect(missing).toEqual([]);
  });

  it('gives each code the status the source throws it with', () => {
    const wrong = [...found.values()].filter((f) => f.statuses.size && ![...f.statuses].includes(catalogue.get(f.code)?.status as number)).map((f) => `${f.code}: source ${[...f.statuses]}, catalogue ${catalogue.get(f.code)?.status}`);
    expect(wrong).toEqual([]);
  });

  it('lists no code twice and none the source does not have', () => {
    expect(catalogue.size).toBe(catalogueEntries().length);
    expect(catalogueEntries().map((e) => e.code).filter((c) => !found.has(c))).toEqual([]);
  });

  it('is the same table in the README and in the OpenAPI document (and so on /docs)', () => {
    expect(readFileSync('README.md', 'utf8')).toContain(catalogueTable());
    const doc = buildPosOpenApi() as { info: { description: string } };
    expect(doc.info.description).toContain(catalogueTable());
  });
});
