import type { Metrics } from '../../platform/metrics';
import type { ExpiryVia, Redemption, RedemptionStore } from './';
import { lapsedFrom } from './record';

/**
 * The redemption store, counting every state change it makes: creation
 * (`none -> held|otp_required`) and each successful `change` whose state
 * differs. Expiries are counted by the sweeper hook below, which hears both
 * its own claims and expiries found on read. A Proxy, so methods added to
 * the store later pass straight through.
 */
export function instrumentRedemptions(store: RedemptionStore, metrics: Metrics): RedemptionStore {
  const transitions = metrics.redemptionTransitions;
  const create: RedemptionStore['create'] = async (r) => {
    await store.create(r);
    transitions.inc({ from: 'none', to: r.state });
  };
  const change: RedemptionStore['change'] = async (id, now, fn) => {
    // The store may call `fn` again after a concurrent write; the last call is the one that took.
    let from: Redemption['state'] | undefined;
    const result = await store.change(id, now, (cur) => {
      from = cur.state;
      return fn(cur);
    });
    if (result.ok && from !== undefined && from !== result.redemption.state) transitions.inc({ from, to: result.redemption.state });
    return result;
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'create') return create;
      if (prop === 'change') return change;
      const value = Reflect.get(target, prop, target) as unknown;
      // Bound to the proxy, so a method built on `change` (apply) is counted too.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(receiver) : value;
    },
  });
}

/** For `HoldSweeper({ onExpired })`: one expiry, counted once across instances; a stand-in's lapse is a transition, not a hold expired. */
export function countExpiredHold(metrics: Metrics): (r: Redemption, via: ExpiryVia) => void {
  return (r, via) => {
    const from = lapsedFrom(r);
    if (from === 'held') metrics.holdsExpired.inc({ via });
    metrics.redemptionTransitions.inc({ from, to: 'expired' });
  };
}
