import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateDocuments, LOYALTY_DOCUMENT, POS_DOCUMENT, ROOT } from '../../scripts/openapi';

const run = promisify(execFile);

describe('generated OpenAPI documents and till client types', () => {
  it('the committed documents are exactly what the schemas produce (npm run openapi rewrites them)', () => {
    const docs = generateDocuments();
    expect(Object.keys(docs).sort()).toEqual([LOYALTY_DOCUMENT, POS_DOCUMENT].sort());
    const stale = Object.entries(docs)
      .filter(([file, content]) => readFileSync(path.join(ROOT, file), 'utf8') !== content)
      .map(([file]) => file);
    expect(stale).toEqual([]);
  });

  it('the committed client types are what openapi-typescript makes of the committed document (npm run openapi -- --check)', async () => {
    // A child process: openapi-typescript is ESM inside and cannot load in this CommonJS test runner.
    const { stdout } = await run(process.execPath, [require.resolve('tsx/cli'), 'scripts/openapi.ts', '--check'], { cwd: ROOT });
    expect(stdout).toContain('OpenAPI documents and client types are up to date');
  }, 60_000);

  it('redocly lint (recommended rules) finds no error and no warning in either document', async () => {
    const redocly = path.join(ROOT, 'node_modules/.bin/redocly');
    const { stdout } = await run(redocly, ['lint', '--config', 'openapi/redocly.yaml', POS_DOCUMENT, LOYALTY_DOCUMENT, '--format=json'], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 10 * 1024 * 1024,
    });
    // One JSON report per document, back to back.
    const reports = stdout.trim().split(/\n(?=\{)|(?<=\})(?=\{)/).map((r) => JSON.parse(r) as { totals: { errors: number; warnings: number; ignored: number }; problems: unknown[] });
    expect(reports).toHaveLength(2);
    for (const r of reports) {
      expect(r.problems).toEqual([]);
      expect(r.totals).toMatchObject({ errors: 0, warnings: 0 });
    }
    // Only the sandbox's /openapi.json, without a 4XX answer, is excepted (openapi/.redocly.lint-ignore.yaml).
    expect(reports.map((r) => r.totals.ignored)).toEqual([0, 1]);
  }, 60_000);
});
