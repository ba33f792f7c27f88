import type { CostHarness } from '../../bench/lib/call-costs';
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

/** The stack the README's table is measured on: one BFF on Redis, settings as in production (the QR code is the proof of presence). */
export function costStack(): Promise<Stack> {
  return startStack({ store: 'redis', env: { REDEMPTION_PROOF: 'hash_or_otp' } });
}
