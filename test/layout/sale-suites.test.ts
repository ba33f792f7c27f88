import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The jest project that runs the sale suites again with sales recorded as
 * tracked orders names them by path: a renamed or mistyped one would silently
 * not run there.
 */
const root = path.join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(path.join(root, 'jest.config.js')) as { projects: { displayName: string; testMatch: string[]; setupFiles?: string[] }[] };

describe('the order-mode project', () => {
  const orders = config.projects.find((p) => p.displayName === 'sales as orders');

  it('exists, and sets sales to be recorded as orders', () => {
    expect(orders?.setupFiles).toEqual(['<rootDir>/test/support/sales-as-orders.ts']);
  });

  it('names only suites that exist, and more than a handful of them', () => {
    const files = (orders?.testMatch ?? []).map((m) => m.replace('<rootDir>/', ''));
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => !existsSync(path.join(root, f)))).toEqual([]);
  });
});
