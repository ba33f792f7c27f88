import { AbuseSignalSchema } from '../audit/schemas';
import { z } from 'zod';
import { AUDIT_ACTIONS } from '../audit/types';
import { ANOMALIES, ROW_KINDS, ROW_STATUSES } from './types';

export const ReconciliationQuery = z.strictObject({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
    .optional()
    .describe('A day of the store (STORE_TIME_ZONE); default yesterday. Or give `from` and `to` (at most 7 days).'),
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Start of the window, an ISO 8601 date-time with its offset (Z for UTC); give it with `to`, not with `date`'),
  to: z.iso.datetime({ offset: true }).optional().describe('End of the window (inclusive), an ISO 8601 date-time; at most 7 days after `from`'),
  format: z
    .enum(['json', 'csv', 'print'])
    .default('json')
    .describe('`csv`: one row per row and the two totals (text/csv); `print`: the 40-column printout (text/plain)'),
});

/** null: that side cannot say (an answer lost, a figure the interface does not give). */
const figure = (what: string) => z.number().nullable().optional().describe(`${what}; null when this side cannot say`);
const Figures = z
  .object({
    paid: figure("Money paid, in the store's currency"),
    refunded: figure("Money refunded, in the store's currency"),
    earned: figure('Points earned'),
    redeemed: figure('Points redeemed'),
    givenBack: figure('Redeemed points a refund gave back'),
    takenBack: figure('Earned points a refund or sale void took back'),
  })
  .meta({ id: 'ReconciliationFigures' });

const Row = z
  .object({
    kind: z.enum(ROW_KINDS).describe('What the row is about'),
    id: z.string().describe("The sale's payment id, the refund id, the redemption or lock id; the audit entry's id for the rest"),
    customerId: z.string().optional().describe('The loyalty customer'),
    paymentId: z.string().optional().describe("A refund's or sale void's sale"),
    terminalIds: z.array(z.string()).describe('The tills that took part'),
    cashierIds: z.array(z.string()).describe('The cashiers that took part (X-Cashier-Id)'),
    status: z.enum(ROW_STATUSES).describe('How it ended, comparing the two sides'),
    flags: z.array(z.enum(ANOMALIES)).describe('What a manager should look into; empty when nothing'),
    note: z.string().describe('The row in words, as the printout and the CSV show it'),
    bff: Figures.describe("This BFF's side (null: not known here)"),
    upstream: Figures.describe("The loyalty service's record"),
    entries: z.array(z.string()).describe('The audit entries of this row'),
    at: z.number().describe('Epoch ms of its first entry'),
  })
  .meta({ id: 'ReconciliationRow' });

export const ReconciliationReportSchema = z
  .object({
    storeId: z.string().describe("The manager's store"),
    window: z
      .object({
        from: z.string().describe('Start of the window, ISO 8601 UTC'),
        to: z.string().describe('End of the window (inclusive), ISO 8601 UTC'),
        date: z.string().optional().describe("The store's day (YYYY-MM-DD), when a day was asked for"),
        timeZone: z.string().describe("The store's time zone (STORE_TIME_ZONE), in which a day is read"),
      })
      .describe('The time the report covers'),
    generatedAt: z.string().describe('When the report was made, ISO 8601 UTC'),
    actions: z
      .partialRecord(z.enum(AUDIT_ACTIONS), z.number().describe("The window's audit entries of this action"))
      .describe('Audit entries in the window, by action (an action without any is left out)'),
    settledLater: z.number().describe("Audit entries that settled an earlier unknown outcome from the loyalty service's record"),
    rows: z.array(Row).describe('One row per sale, refund, redemption, lock or other action (every audit entry is in exactly one)'),
    anomalies: z
      .array(
        z.object({
          kind: z.enum(ANOMALIES).describe('What is flagged'),
          row: z.enum(ROW_KINDS).describe("The flagged row's kind"),
          id: z.string().describe("The flagged row's id"),
          note: z.string().describe('The flagged row in words'),
        }),
      )
      .describe("Every row's flags, one item per flag"),
    totals: z
      .object({
        bff: Figures,
        upstream: Figures,
        notKnownHere: z
          .partialRecord(z.enum(['paid', 'refunded', 'earned', 'redeemed', 'givenBack', 'takenBack']), z.number().describe('Rows without this figure'))
          .describe('Rows whose BFF-side figure is not known, per figure (the bff total leaves them out)'),
      })
      .describe('The two sides summed'),
    reads: z
      .object({
        orderTransactions: z.number().describe("Reads of a sale's transactions"),
        holdLookup: z.number().describe("Reads of a hold's record"),
      })
      .describe("Reads of the loyalty service's records this report made"),
    redisLosses: z
      .array(
        z.object({
          from: z.string().describe('When the data set was last seen whole, ISO 8601 UTC'),
          to: z.string().describe('When it was found lost, ISO 8601 UTC'),
        }),
      )
      .describe('Spans in which the Redis data set was lost: what was recorded here before then may be gone, so rows may be missing'),
    signals: z
      .array(AbuseSignalSchema)
      .describe('The abuse signals of the window this store has a part in, with only its own part (GET /audit/signals); none on a clean day'),
    printout: z.array(z.string()).describe('The report for the till printer, 40 columns a line'),
  })
  .meta({ id: 'ReconciliationReport' });
