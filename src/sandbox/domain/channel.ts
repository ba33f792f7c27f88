import type { AccountSettings } from '../accounts';
import { loyaltyErrors } from '../errors';

/**
 * Channel merging: an account that merges by email (or mobile) needs that
 * field on every customer-scoped request, or it cannot join the profiles.
 */
export function requireChannelField(settings: AccountSettings, body: { email?: string; mobile?: string }): void {
  const field = settings.channelMerging;
  if (field === 'none') return;
  if (body[field] === undefined || body[field] === '') {
    throw loyaltyErrors.missingField(
      `Missing required field: ${field} (this account merges customer channels by ${field}, so every customer request must carry it)`,
      [{ path: field, message: `required when channel merging is by ${field}` }],
    );
  }
}
