export { CircuitBreaker } from './circuit-breaker';
export type { BreakerState, CircuitBreakerOptions } from './circuit-breaker';
export { createRateLimiter, MemoryRateLimiter, rateLimitPolicy, RedisRateLimiter } from './rate-limiter';
export type { FleetRateLimiter, RateLimitPolicyOptions, RateLimits, Reservation } from './rate-limiter';
