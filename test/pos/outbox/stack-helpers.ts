import { SANDBOX_KEYS, Stack } from '../../support/e2e';

/** Helpers for outbox tests over the e2e stack: sandbox faults and activity, waiting on the outbox. */

export async function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function setFaults(s: Stack, rules: object[]): Promise<void> {
  const res = await s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules });
  if (res.status !== 200) throw new Error(`faults: ${res.status} ${res.text}`);
}

/** How many times each current rule fired. */
export async function faultsApplied(s: Stack): Promise<number[]> {
  const res = await s.sandboxAdmin.get('/_sandbox/faults').set(SANDBOX_KEYS);
  return (res.body.rules as { applied: number }[]).map((r) => r.applied);
}

export async function activity(s: Stack, customerId: string): Promise<{ type: string; properties: Record<string, unknown> }[]> {
  const res = await s.sandboxAdmin.get(`/_sandbox/customers/${customerId}/activity`).set(SANDBOX_KEYS);
  if (res.status !== 200) throw new Error(`activity of ${customerId}: ${res.status} ${res.text}`);
  return res.body.activity;
}

/** The paymentIds the sandbox recorded for a customer, in order, duplicates kept. */
export async function paymentsOf(s: Stack, customerId: string): Promise<string[]> {
  return (await activity(s, customerId)).flatMap((a) =>
    a.type === 'Payment Processed' ? [String(a.properties.paymentId)] : a.type === 'Order Processed' ? [String(a.properties.orderId)] : [],
  );
}

/** Undelivered entries across the stack (they share one outbox with Redis). */
export async function pending(s: Stack): Promise<number> {
  return (await s.bff.deps.outbox.counts()).pending;
}

/** Runs `fn` over `items`, `width` at a time. */
export async function inBatches<T, R>(items: T[], width: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map((item, j) => fn(item, i + j)))));
  return out;
}
