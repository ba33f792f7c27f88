import type { EventRequest, EventResponse } from '../../contract';
import type { SandboxContext } from '../context';
import { requireChannelField } from '../domain/channel';
import type { AccountEntry } from '../state/store';
import { ensureProfile } from './customers';

/** `POST /events`: records each event in the customer's activity; configured events give points. */
export function recordEvents(ctx: SandboxContext, account: AccountEntry, req: EventRequest): EventResponse {
  const { settings, ledger } = account;
  const now = ctx.clock.now();
  requireChannelField(settings, req);
  const { c } = ensureProfile(ctx, account, req.customerId, req);
  const names = Object.keys(req.events);
  let rewarded = 0;
  for (const name of names) {
    // Own keys only: an event named "constructor" or "toString" must not find Object.prototype's (found by fuzzing).
    const reward = Object.hasOwn(settings.eventRewards, name) ? settings.eventRewards[name] : 0;
    ledger.recordActivity(c, { type: name, at: now, properties: { ...req.events[name], rewardedPoints: reward } });
    // Each rewarded event is its own ledger entry (a refund never reaches it).
    ledger.creditEarned(c, reward, now, `event:${name}`);
    rewarded += reward;
  }
  const reward = rewarded > 0 ? ` (${rewarded} points rewarded)` : '';
  return { success: true, message: `${names.length} event${names.length === 1 ? '' : 's'} recorded for customer "${c.id}"${reward}` };
}
