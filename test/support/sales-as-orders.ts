/**
 * Set up for the jest project that runs the sale suites again with sales
 * recorded as tracked orders: the stacks (test/support/e2e.ts) and BFF
 * processes (test/support/child-env.ts) the suites start read it.
 */
process.env.E2E_SALES_RECORDED_AS = 'order';
