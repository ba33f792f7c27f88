import { z } from 'zod';
import { feature, setting, type SliceOf } from './define';

export const holdExpiry = feature({
  title: 'Hold expiry',
  notes: ["A redemption's expiry is first estimated from the hold period; a hold lookup corrects it."],
  settings: {
    lookup: setting('HOLD_EXPIRY_LOOKUP', z.enum(['after_answer', 'before_answer', 'off']).default('after_answer'), {
      description:
        "When the hold lookup that confirms a hold's end is sent: after_answer (the till does not wait for it; it " +
        'corrects the tracked expiry), before_answer (one more upstream round trip per redemption), or off (the expiry ' +
        'stays the estimate from HOLD_PERIOD_MINUTES).',
      readme:
        "the hold lookup that corrects a redemption's estimated expiry is sent after the till's answer; `before_answer` " +
        'waits for it (one more upstream round trip), `off` never sends it',
    }),
  },
});

export type HoldExpirySettings = SliceOf<typeof holdExpiry>;
