import { z } from 'zod';
import { AUDIT_ACTIONS } from '../audit/types';
import { ANOMALIES, ROW_KINDS, ROW_STATUSES } from './types';

export const ReconciliationQuery = z.strictObject({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
    .optional()
    .describe('A day of the store (STORE_TIME_ZONE); default yesterday. Or give `from` and `to` (at most 7 days).'),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  format: z
    .enum(['json', 'csv', 'print'])
    .default('json')
    .describe('`csv`: one row per row and the two totals (text/csv); `print`: the 40-column printout (text/plain)'),
});

const figure = z.number().nullable().optional();
const Figures = z
  .object({ paid: figure, refunded: figure, earned: figure, redeemed: figure, givenBack: figure, takenBack: figure })
  .meta({ id: 'ReconciliationFigures' });

const Row = z
  .object({
    kind: z.enum(ROW_KINDS),
    id: z.string(),
    customerId: z.string().optional(),
    paymentId: z.string().optional(),
    terminalIds: z.array(z.string()),
    cashierIds: z.array(z.string()),
    status: z.enum(ROW_STATUSES),
    flags: z.array(z.enum(ANOMALIES)),
    note: z.string(),
    bff: Figures.describe("This BFF's side (null: not known here)"),
    upstream: Figures.describe("The loyalty service's record"),
    entries: z.array(z.string()).describe('The audit entries of this row'),
    at: z.number().describe('Epoch ms of its first entry'),
  })
  .meta({ id: 'ReconciliationRow' });

export const ReconciliationReportSchema = z
  .object({
    storeId: z.string(),
    window: z.object({ from: z.string(), to: z.string(), date: z.string().optional(), timeZone: z.string() }),
    generatedAt: z.string(),
    actions: z.partialRecord(z.enum(AUDIT_ACTIONS), z.number()),
    settledLater: z.number(),
    rows: z.array(Row),
    anomalies: z.array(z.object({ kind: z.enum(ANOMALIES), row: z.enum(ROW_KINDS), id: z.string(), note: z.string() })),
    totals: z.object({
      bff: Figures,
      upstream: Figures,
      notKnownHere: z.partialRecord(z.enum(['paid', 'refunded', 'earned', 'redeemed', 'givenBack', 'takenBack']), z.number()),
    }),
    reads: z.object({ orderTransactions: z.number(), holdLookup: z.number() }),
    redisLosses: z
      .array(z.object({ from: z.string(), to: z.string() }))
      .describe('Spans in which the Redis data set was lost: what was recorded here before then may be gone, so rows may be missing'),
    printout: z.array(z.string()).describe('The report for the till printer, 40 columns a line'),
  })
  .meta({ id: 'ReconciliationReport' });
