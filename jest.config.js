/**
 * Two projects: every suite, and the suites of the sale path once more with
 * sales recorded as tracked orders (SALES_RECORDED_AS=order, set by
 * test/support/sales-as-orders.ts for the stacks and BFF processes they start).
 */
const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
};

/** The suites that sell, refund, void, read back, queue and reconcile sales: the same files, run in order mode. */
const SALE_SUITES = [
  'test/e2e/sales.test.ts',
  'test/e2e/checkout.test.ts',
  'test/e2e/money-path.test.ts',
  'test/e2e/money-rules-sales.test.ts',
  'test/e2e/money-settling.test.ts',
  'test/e2e/money-windows.test.ts',
  'test/e2e/same-write.test.ts',
  'test/e2e/sale-lines.test.ts',
  'test/e2e/sale-scope.test.ts',
  'test/e2e/receipt-balance.test.ts',
  'test/e2e/receipt-round-trips.test.ts',
  'test/e2e/receipts-unknown.test.ts',
  'test/e2e/round-trips.test.ts',
  'test/e2e/totals.test.ts',
  'test/e2e/discount-totals.test.ts',
  'test/e2e/payment-guards.test.ts',
  'test/e2e/claims.test.ts',
  'test/e2e/coupons.test.ts',
  'test/e2e/coupon-lock-settle.test.ts',
  'test/e2e/void-coupons.test.ts',
  'test/e2e/refund-line-limits.test.ts',
  'test/e2e/audit-trail.test.ts',
  'test/e2e/reconciliation-daily.test.ts',
  'test/e2e/till-deadline.test.ts',
  'test/e2e/till-deadline-refused.test.ts',
  'test/e2e/stand-in.test.ts',
  'test/faults/outbox-payments.test.ts',
  'test/faults/outbox-maybe-landed.test.ts',
  'test/faults/reconciliation-day.test.ts',
  'test/reference/prism-walkthrough.test.ts',
  'test/reference/sent-requests.test.ts',
];

/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  projects: [
    { ...base, displayName: 'all', testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'] },
    {
      ...base,
      displayName: 'sales as orders',
      testMatch: SALE_SUITES.map((f) => `<rootDir>/${f}`),
      setupFiles: ['<rootDir>/test/support/sales-as-orders.ts'],
    },
  ],
};
