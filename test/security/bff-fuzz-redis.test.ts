import { describeBffFuzz } from './support/bff-fuzz';
import { runsFor } from './support/fuzz';

/** The same attack on the Redis store (real private Redis), fewer cases: the routes are the same, the state lives elsewhere. */
describeBffFuzz('redis', runsFor(80));
