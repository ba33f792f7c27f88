import { displayWidth, fitWidth } from '../../platform/display-width';
import { csvOf } from '../audit/format';
import { centre, RECEIPT_WIDTH, row } from '../sales/receipt';
import { upstreamTime } from '../../upstream/date-time';
import { localDateTime, localTime } from '../audit/store-day';
import { FIGURES, type Figure, type Figures, type ReconciliationReport, type ReconciliationRow, type RowStatus } from './types';

const LABELS: Record<Figure, string> = {
  paid: 'Paid',
  refunded: 'Refunded',
  earned: 'Earned',
  redeemed: 'Redeemed',
  givenBack: 'Given back',
  takenBack: 'Taken back',
};
const MONEY = new Set<Figure>(['paid', 'refunded']);

const figure = (f: Figure, v: number | null | undefined) => (v === null || v === undefined ? '' : MONEY.has(f) ? v.toFixed(2) : String(v));
/** In the printout a figure not known is a question mark, not a blank a reader takes for 0. */
const printed = (f: Figure, v: number | null | undefined) => (v === null ? '?' : figure(f, v));

/** Rows with nothing upstream to compare them with (events, sign-ups, batch uploads; a record that could not be read; a stand-in's redeem not yet sent): never "in step". */
const NOT_COMPARED = new Set<RowStatus>(['recorded_here', 'not_checked', 'pending']);

/** Rows without an anomaly, split by whether they were compared with the loyalty service's record. */
export function quietRows(rows: readonly ReconciliationRow[]): { inStep: number; notComparable: number } {
  const quiet = rows.filter((x) => !x.flags.length);
  const notComparable = quiet.filter((x) => NOT_COMPARED.has(x.status)).length;
  return { inStep: quiet.length - notComparable, notComparable };
}

/** The rows as CSV, then the two sides' totals as two more rows. */
export function reconciliationCsv(r: ReconciliationReport): string {
  const header = [
    'time',
    'kind',
    'id',
    'status',
    'flags',
    'customerId',
    'paymentId',
    'terminals',
    'cashiers',
    ...FIGURES.map((f) => `here_${f}`),
    ...FIGURES.map((f) => `loyalty_${f}`),
    'note',
    'auditEntries',
  ];
  const rows: unknown[][] = r.rows.map((x) => [
    localDateTime(x.at, r.window.timeZone),
    x.kind,
    x.id,
    x.status,
    x.flags.join(' '),
    x.customerId,
    x.paymentId,
    x.terminalIds.join(' '),
    x.cashierIds.join(' '),
    ...FIGURES.map((f) => figure(f, x.bff[f])),
    ...FIGURES.map((f) => figure(f, x.upstream[f])),
    x.note,
    x.entries.length,
  ]);
  const total = (id: string, side: Figures, here: boolean): unknown[] => [
    '',
    'total',
    id,
    '',
    '',
    '',
    '',
    '',
    '',
    ...FIGURES.map((f) => (here ? figure(f, side[f]) : '')),
    ...FIGURES.map((f) => (here ? '' : figure(f, side[f]))),
    '',
    '',
  ];
  rows.push(total('here', r.totals.bff, true), total('loyalty', r.totals.upstream, false));
  for (const loss of r.redisLosses) {
    const at = (iso: string) => localDateTime(upstreamTime(iso) ?? 0, r.window.timeZone);
    const line: unknown[] = [at(loss.to), 'redis_loss', '', '', '', '', '', '', '', ...FIGURES.map(() => ''), ...FIGURES.map(() => ''), '', ''];
    line[line.length - 2] = `Redis data set lost between ${at(loss.from)} and ${at(loss.to)}: rows recorded before may be missing`;
    rows.push(line);
  }
  for (const x of r.signals) {
    const part = x.parts[0];
    const line: unknown[] = [
      localDateTime(upstreamTime(x.from) ?? 0, r.window.timeZone),
      'signal',
      x.signal,
      '',
      '',
      x.customerId,
      part?.paymentIds.join(' '),
      part?.terminalIds.join(' '),
      part?.cashierIds.join(' '),
      ...FIGURES.map(() => ''),
      ...FIGURES.map(() => ''),
      x.note,
      '',
    ];
    rows.push(line);
  }
  return csvOf(header, rows);
}

/** Words broken onto lines of `width` columns (a word longer than a line is cut across lines). */
function wrap(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let w = word;
    while (displayWidth(indent) + displayWidth(w) > width) {
      if (line.trim()) lines.push(line);
      const part = fitWidth(w, width - displayWidth(indent));
      lines.push(indent + part);
      w = w.slice(part.length);
      line = indent;
    }
    const next = line.trim() ? `${line} ${w}` : indent + w;
    if (displayWidth(next) > width) {
      lines.push(line);
      line = indent + w;
    } else line = next;
  }
  if (line.trim()) lines.push(line);
  return lines;
}

/** Three columns: the label, this BFF's figure, the loyalty service's. */
function totalsLine(label: string, here: string, there: string, width: number): string {
  const col = 13;
  const right = (s: string) => ' '.repeat(Math.max(0, col - displayWidth(s))) + s;
  const l = fitWidth(label, width - 2 * col);
  return l + ' '.repeat(width - 2 * col - displayWidth(l)) + right(here) + right(there);
}

/**
 * The report for the till's printer: at most RECEIPT_WIDTH columns a line.
 * Totals on both sides, then each anomaly with its time, id and what to look at.
 */
export function reconciliationPrintout(r: ReconciliationReport, width = RECEIPT_WIDTH): string[] {
  const tz = r.window.timeZone;
  const out = [centre(`Reconciliation ${r.storeId}`, width)];
  const minute = (iso: string) => localDateTime(upstreamTime(iso) ?? 0, tz).slice(0, 16);
  if (r.window.date) out.push(row('Day', r.window.date, width));
  else out.push(row('From', minute(r.window.from), width), row('To', minute(r.window.to), width));
  out.push(row('Time zone', tz, width), row('Printed', minute(r.generatedAt), width));
  const actions = Object.values(r.actions).reduce((s, n) => s + (n ?? 0), 0);
  out.push(row('Cashier actions', String(actions), width));
  const quiet = quietRows(r.rows);
  out.push(row('Checked, in step', String(quiet.inStep), width));
  out.push(row('Not comparable', String(quiet.notComparable), width));
  out.push(row('Anomalies', String(r.anomalies.length), width));
  out.push(row('Abuse signals', String(r.signals.length), width));
  for (const loss of r.redisLosses) {
    out.push(...wrap(`REDIS DATA LOST ${minute(loss.from)} to ${minute(loss.to)}: what was recorded here before may be gone; rows may be missing`, width));
  }
  out.push(centre('Totals', width));
  out.push(totalsLine('', 'Here', 'Loyalty', width));
  let starred = false;
  for (const f of FIGURES) {
    const missing = r.totals.notKnownHere[f] ?? 0;
    starred ||= missing > 0;
    out.push(totalsLine(LABELS[f], `${printed(f, r.totals.bff[f])}${missing ? '*' : ''}`, printed(f, r.totals.upstream[f]), width));
  }
  if (starred) out.push(...wrap('* not known here for some rows: an answer lost, or a figure no answer gives (points given back)', width));
  if (r.anomalies.length) {
    out.push(centre('Anomalies', width));
    for (const x of r.rows.filter((row) => row.flags.length)) {
      out.push(...wrap(`${localTime(x.at, tz)} ${x.kind.replace('_', ' ')} ${x.id}`, width));
      out.push(...wrap(x.flags.map((f) => f.replace(/_/g, ' ')).join(', '), width, '  '));
      out.push(...wrap(x.note, width, '  '));
    }
  }
  if (r.signals.length) {
    out.push(centre('Abuse signals', width));
    for (const x of r.signals) {
      out.push(...wrap(`${localTime(upstreamTime(x.from) ?? 0, tz)} ${x.signal.replace(/_/g, ' ')}`, width));
      out.push(...wrap(x.note, width, '  '));
      const cashiers = x.parts.flatMap((p) => p.cashierIds);
      if (cashiers.length) out.push(...wrap(`cashiers: ${cashiers.join(' ')}`, width, '  '));
    }
  }
  out.push('-'.repeat(width));
  return out;
}
