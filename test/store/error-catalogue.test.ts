import { readFileSync } from 'node:fs';
import { ERROR_CLASS_OF_STATUS } from '../../src/platform/errors';
import { problem } from '../../src/platform/problem';
import { catalogueEntries, PROBLEM_CATALOGUE } from '../../src/platform/problem-catalogue';
import { catalogueTable } from '../../src/platform/error-table';
import { buildPosOpenApi } from '../../src/pos/openapi';

/** The compiler checks the codes the source uses; this checks the table itself and its copies. */
describe('the error catalogue', () => {
  it('lists each code once, as a snake_case name (a problem type URN is made of it)', () => {
    const rows = catalogueTable()
      .split('\n')
      .slice(2)
      .map((row) => /^\| `([^`]+)` \|/.exec(row)?.[1]);
    expect(rows).toEqual(Object.keys(PROBLEM_CATALOGUE));
    expect(new Set(rows).size).toBe(rows.length);
    for (const code of rows) expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('gives each code a status an error class has, and problem() builds that class', () => {
    for (const { code, status } of catalogueEntries()) {
      const err = problem(code, 'detail');
      expect(err).toBeInstanceOf(ERROR_CLASS_OF_STATUS[status]);
      expect({ code: err.code, status: err.status }).toEqual({ code, status });
    }
  });

  it('is the same table in the README and in the OpenAPI document (and so on /docs)', () => {
    expect(readFileSync('docs/till-developer.md', 'utf8')).toContain(catalogueTable());
    const doc = buildPosOpenApi() as { info: { description: string } };
    expect(doc.info.description).toContain(catalogueTable());
  });
});
