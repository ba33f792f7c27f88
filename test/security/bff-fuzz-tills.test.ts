import { BFF_ROUTE_NAMES, describeBffFuzz } from './support/bff-fuzz';
import { runsFor } from './support/fuzz';

/**
 * The customer and redemption routes of /pos/v1, attacked with mutated and
 * random bodies, broken JSON, wrong content types, oversized bodies and odd
 * path parameters (in-process store: the most cases; the other routes are in
 * bff-fuzz-sales, so the two files run side by side). On a failure fast-check
 * prints the seed and path; rerun with FUZZ_SEED=<seed>, or FUZZ_SCALE=10.
 */
describeBffFuzz(
  'memory',
  runsFor(500),
  BFF_ROUTE_NAMES.filter((n) => /customers|redemptions/.test(n)),
);
