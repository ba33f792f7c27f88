import { readFileSync } from 'node:fs';
import { BEGIN, END, generateManagerReports, normalised } from '../../scripts/manager-reports';

/**
 * The README's store-manager examples are what a run of the BFF and the
 * sandbox prints (scripts/manager-reports.ts), times, dates and random ids
 * aside: they cannot drift from the code.
 */
describe('README: the store-manager examples', () => {
  it('are what a run prints', async () => {
    const readme = readFileSync('docs/store-manager.md', 'utf8');
    const block = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END) + END.length);
    expect(block.length).toBeGreaterThan(1000);
    const made = await generateManagerReports();
    expect(normalised(block)).toBe(normalised(made));
    // The printout is for a 40-column printer.
    const printout = made.slice(made.lastIndexOf('```\n------- Reconciliation'));
    for (const line of printout.split('\n').slice(1, -3)) expect(line.length).toBeLessThanOrEqual(40);
  }, 60_000);
});
