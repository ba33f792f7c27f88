import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureBothModes } from '../test/support/call-costs';
import { callCostTable, readmeCallCostTable, withCallCostTable } from './lib/call-costs';
import { startPrivateRedis } from './lib/redis-server';

/**
 * Measures what each cashier action costs in calls to the loyalty service,
 * per published bucket (bench/lib/call-costs.ts), on the BFF and the sandbox
 * over real HTTP with a private Redis, with sales recorded as payments and as
 * tracked orders (SALES_RECORDED_AS=payment and =order, a stack each, side by
 * side), and writes the one table of both into docs/operator/performance.md.
 * Run: npx tsx bench/call-costs.ts            (print and write the table)
 *      npx tsx bench/call-costs.ts --check    (exit 1 when the committed table is not what is measured)
 * test/e2e/call-costs.test.ts makes the same check.
 */
async function main() {
  const redis = await startPrivateRedis();
  process.env.TEST_REDIS_URL = redis.url;
  try {
    const table = callCostTable(await measureBothModes({ prefix: 'cost' }));
    process.stdout.write(`${table}\n`);
    const file = path.join(__dirname, '..', 'docs', 'operator', 'performance.md');
    const readme = readFileSync(file, 'utf8');
    if (process.argv.includes('--check')) {
      if (readmeCallCostTable(readme) !== table) {
        process.stderr.write('docs/operator/performance.md: the call-cost table is not what was measured; run npx tsx bench/call-costs.ts\n');
        process.exitCode = 1;
      }
    } else {
      writeFileSync(file, withCallCostTable(readme, table));
      process.stdout.write('wrote the table into docs/operator/performance.md\n');
    }
  } finally {
    await redis.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`call costs failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
