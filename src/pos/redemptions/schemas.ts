import { z } from 'zod';
import { DateTime } from '../../contract';

/** The account's redemption rules, as the till's buttons show them. */
export const RedemptionOptionsSchema = z.strictObject({
  redemptionFactor: z.number().nullable().describe('Money value of one point'),
  rules: z.array(
    z.strictObject({
      ruleId: z.string().describe('Send as ruleId to POST /redemptions'),
      name: z.string(),
      points: z.number(),
      value: z.number(),
      type: z.string(),
    }),
  ),
  fetchedAt: DateTime.describe('When this instance read them from the loyalty service'),
});
