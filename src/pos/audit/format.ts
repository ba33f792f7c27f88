import { localDateTime } from './store-day';
import type { AuditEntry } from './types';

const COLUMNS = [
  'at',
  'storeId',
  'terminalId',
  'cashierId',
  'shiftId',
  'action',
  'outcome',
  'code',
  'customerId',
  'paymentId',
  'refundId',
  'redemptionId',
  'couponLockId',
  'outboxId',
  'names',
  'pointsEarned',
  'pointsRedeemed',
  'pointsHeld',
  'pointsTakenBack',
  'amountPaid',
  'amountRefunded',
  'amountHeld',
  'couponWorth',
  'proof',
  'requestId',
  'repair',
  'id',
] as const;

/**
 * One CSV cell (RFC 4180). Text a spreadsheet would run as a formula (=, +,
 * -, @ first) is prefixed with a quote: ids come from tills.
 */
export function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  let s = Array.isArray(v) ? v.join(' ') : String(v);
  if ((typeof v === 'string' || Array.isArray(v)) && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvOf(header: readonly string[], rows: unknown[][]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** One row per entry; `at` as ISO 8601 (an entry as stored, or as a manager sees it). */
export function auditCsv(entries: (Omit<AuditEntry, 'at'> & { at: number | string })[]): string {
  return csvOf(
    COLUMNS,
    entries.map((e) => COLUMNS.map((c) => (c === 'at' ? new Date(e.at).toISOString() : e[c]))),
  );
}

const signed = (n: number | undefined, sign: string, unit: string) => (n ? [`${sign}${n} ${unit}`] : []);

/** The figures and ids of an entry in a few words. */
export function auditDetail(e: AuditEntry): string {
  return [
    e.paymentId && `payment ${e.paymentId}`,
    e.refundId && `refund ${e.refundId}`,
    e.redemptionId && `redemption ${e.redemptionId}`,
    e.couponLockId && `lock ${e.couponLockId}`,
    e.outboxId && `outbox ${e.outboxId}`,
    e.names?.length ? e.names.join(' ') : undefined,
    e.amountPaid !== undefined ? `paid ${e.amountPaid}` : undefined,
    e.amountRefunded !== undefined ? `refunded ${e.amountRefunded}` : undefined,
    ...signed(e.pointsEarned, '+', 'earned'),
    ...signed(e.pointsRedeemed, '-', 'redeemed'),
    ...signed(e.pointsHeld, '', 'held'),
    ...signed(e.pointsTakenBack, '-', 'taken back'),
    e.couponWorth !== undefined ? `worth ${e.couponWorth}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
}

/** One line per entry, for a terminal: local time, till, cashier/shift, action, outcome, customer, what it moved. */
export function auditText(entries: AuditEntry[], timeZone: string): string {
  if (!entries.length) return 'No audit entries.\n';
  const rows = entries.map((e) => [
    localDateTime(e.at, timeZone),
    e.terminalId,
    `${e.cashierId ?? '-'}/${e.shiftId ?? '-'}`,
    e.action,
    e.code ? `${e.outcome} (${e.code})` : e.outcome,
    e.customerId ?? '-',
    auditDetail(e),
  ]);
  const header = ['TIME', 'TERMINAL', 'CASHIER/SHIFT', 'ACTION', 'OUTCOME', 'CUSTOMER', 'DETAIL'];
  const widths = header.map((_, c) => Math.max(...[header, ...rows].map((r) => r[c].length)));
  return (
    [header, ...rows]
      .map((r) =>
        r
          .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c])))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
