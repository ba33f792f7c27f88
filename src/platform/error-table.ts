/**
 * The error catalogue as one Markdown table, with each code's retry rule (the
 * OpenAPI description and the README "Errors" table are written from it).
 */
import { catalogueEntries, PROBLEM_CATALOGUE, type ProblemCode } from './problem-catalogue';
import { routesOverriding } from './retry-rules';

/** The Errors table's Retry cell: the code's rule, and a pointer when some routes have their own (README "Retrying safely"). */
function retryCell(code: ProblemCode): string {
  return `\`${PROBLEM_CATALOGUE[code].retry}\`` + (routesOverriding(code).length ? ' (other routes: see Retrying safely)' : '');
}

/** The catalogue as one Markdown table (for the OpenAPI description and the README). */
export function catalogueTable(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| Code | Status | Retry | Meaning | What the till does |',
    '|---|--:|---|---|---|',
    ...catalogueEntries().map((e) => `| \`${e.code}\` | ${e.status} | ${retryCell(e.code)} | ${esc(e.meaning)} | ${esc(e.tillDoes)} |`),
  ].join('\n');
}

/** `readme` with its error table (the one starting with catalogueTable's header) made anew. */
export function withErrorTable(readme: string): string {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| Code | Status |'));
  if (start < 0) throw new Error('README.md has no error table to replace');
  let end = start;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  return [...lines.slice(0, start), catalogueTable(), ...lines.slice(end)].join('\n');
}
