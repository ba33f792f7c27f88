import { BFF_ROUTE_NAMES, describeBffFuzz } from './support/bff-fuzz';
import { runsFor } from './support/fuzz';

/** The sale, refund, event, order and outbox routes of /pos/v1 under the same attack as bff-fuzz-tills (in-process store). */
describeBffFuzz(
  'memory',
  runsFor(500),
  BFF_ROUTE_NAMES.filter((n) => !/customers|redemptions/.test(n)),
);
