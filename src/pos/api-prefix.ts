/** Where the cashier API is mounted: every route's path is below it. */
export const POS_API_PREFIX = '/pos/v1';
