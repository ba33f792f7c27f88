import { readFileSync } from 'node:fs';
import { expectPrinted, NpmStart, readmeFence, readmePrints, startNpmStart } from '../readme/npm-start';

/**
 * The README's till example: the file it shows is clients/example-till.ts,
 * word for word, and the command it gives runs it against `npm start`'s stack
 * (twice: each run is a new sale), printing what the README says.
 */
describe('the README till example (the typed client)', () => {
  const heading = '## A till in TypeScript: the typed client';
  let stack: NpmStart;
  beforeAll(async () => {
    stack = await startNpmStart();
  }, 40_000);
  afterAll(() => stack?.close());

  it('shows clients/example-till.ts as it is', () => {
    expect(readmeFence(heading, 'ts')).toBe(readFileSync('clients/example-till.ts', 'utf8'));
  });

  it('runs against npm start, twice, printing the sale and its receipt', async () => {
    const first = await stack.run(readmeFence(heading, 'bash'));
    expectPrinted(first, readmePrints(heading));
    expect(first).toContain('demo-customer has 1000 Stars');
    const second = await stack.run(readmeFence(heading, 'bash'));
    expectPrinted(second, readmePrints(heading));
    expect(second).toContain('demo-customer has 1025 Stars');
  }, 60_000);
});
