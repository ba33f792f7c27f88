export { CircuitBreaker } from './circuit-breaker';
export type { BreakerState, CircuitBreakerOptions } from './circuit-breaker';
export { askOf, MemoryBudget } from './budget';
export type { BucketLimit, BudgetRules, PriorityRule, Reservation, UpstreamBudget } from './budget';
export { createBudget, RedisBudget } from './redis-budget';
export { budgetPolicy } from './budget-policy';
export type { BudgetPolicyOptions } from './budget-policy';
