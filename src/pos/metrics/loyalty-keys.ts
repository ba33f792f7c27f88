import { Gauge } from 'prom-client';
import type { Metrics } from '../../platform/metrics';
import type { LoyaltyKeys } from '../../upstream';

/**
 * `pos_loyalty_key_refused{slot}`: 1 while the loyalty service refuses that
 * slot's key pair, 0 otherwise (accepted, or not known yet); only configured
 * slots are shown. `pos_loyalty_key_usable`: 0 while the key in use is
 * refused (readiness says `loyaltyKey: refused` then), so an alert on
 * `max(pos_loyalty_key_usable) == 0` pages when the whole fleet has no working key.
 */
export function trackKeyVerdicts(keys: LoyaltyKeys, metrics: Metrics): { refused: Gauge<'slot'>; usable: Gauge } {
  const refused = new Gauge({
    name: 'pos_loyalty_key_refused',
    help: "1 while the loyalty service refuses this slot's key pair (current: LOYALTY_*_KEY, next: LOYALTY_*_KEY_NEXT)",
    labelNames: ['slot'],
    registers: [metrics.registry],
    collect() {
      for (const slot of keys.slots()) this.set({ slot }, keys.state(slot).verdict === 'refused' ? 1 : 0);
    },
  });
  const usable = new Gauge({
    name: 'pos_loyalty_key_usable',
    help: '0 while the key pair calls use is refused by the loyalty service (this instance is then not ready)',
    registers: [metrics.registry],
    collect() {
      this.set(keys.refused() ? 0 : 1);
    },
  });
  return { refused, usable };
}
