import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { reconciliationCsv, reconciliationPrintout } from './format';
import type { ReconciliationReport } from './types';

/** The three forms of a report, one file each, named by store and day (or window). */
export function writeReport(dir: string, report: ReconciliationReport): string[] {
  mkdirSync(dir, { recursive: true });
  const stem = path.join(dir, `reconciliation-${report.storeId}-${report.window.date ?? report.window.from.replace(/[:.]/g, '')}`);
  const files: [string, string][] = [
    [`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`],
    [`${stem}.csv`, reconciliationCsv(report)],
    [`${stem}.txt`, `${reconciliationPrintout(report).join('\n')}\n`],
  ];
  for (const [file, text] of files) writeFileSync(file, text);
  return files.map(([file]) => file);
}
