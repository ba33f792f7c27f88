import { type CallCost, type CostHarness, measureCallCosts, SALE_MODES, type SaleMode, saleModeEnv } from '../../bench/lib/call-costs';
import { sandboxCallsFromLines } from '../../bench/lib/upstream-calls';
import { startStack, type Stack } from './e2e';

/** The call-cost measurement (bench/lib/call-costs.ts) on an end-to-end stack: its till, its sandbox's admin API and its sandbox's request log. */
export function stackHarness(s: Stack): CostHarness {
  return {
    async send(role, method, p, body) {
      const till = s.pos(role);
      const res = await (method === 'GET' ? till.get(p) : method === 'PUT' ? till.put(p, body as object) : till.post(p, body as object));
      if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
      return res.body;
    },
    seed: (customerId, points) => s.seed(customerId, points),
    qr: async (customerId) => `${customerId}:${await s.hash(customerId)}`,
    calls: async () => sandboxCallsFromLines(s.logs),
  };
}

/**
 * The stack the README's table is measured on: one BFF on Redis, settings as
 * in production (the QR code is the proof of presence), sales recorded as
 * `mode` (SALES_RECORDED_AS).
 */
export function costStack(mode: SaleMode = 'payment'): Promise<Stack> {
  return startStack({ store: 'redis', env: { REDEMPTION_PROOF: 'hash_or_otp', ...saleModeEnv(mode) } });
}

/**
 * The README's measurement in both ways of recording a sale, side by side: a
 * stack (BFF, sandbox, its own request log) per way, so neither's calls are
 * counted for the other, and the two take the time of one.
 */
export async function measureBothModes(o: { prefix: string; quietMs?: number }): Promise<Record<SaleMode, CallCost[]>> {
  const stacks: Stack[] = [];
  try {
    for (const mode of SALE_MODES) stacks.push(await costStack(mode));
    const costs = await Promise.all(SALE_MODES.map((mode, i) => measureCallCosts(stackHarness(stacks[i]), { ...o, prefix: `${o.prefix}-${mode}` })));
    return Object.fromEntries(SALE_MODES.map((mode, i) => [mode, costs[i]])) as Record<SaleMode, CallCost[]>;
  } finally {
    for (const s of stacks) await s.close();
  }
}
