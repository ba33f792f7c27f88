/**
 * Writes the OpenAPI documents and the till client types from the zod schemas:
 *   openapi/pos-v1.json      the cashier API (what GET /openapi.json on the BFF serves)
 *   openapi/loyalty-v4.json  the v4.0 interface as the sandbox serves it
 *   clients/pos-v1.d.ts      TypeScript types for till developers (openapi-typescript)
 *   clients/retry-rules.ts   the till client's retry table (src/platform/retry-rules.ts)
 *   README.md                its error table and retry rules, from the problem catalogue
 * Run: npm run openapi          (write)
 *      npm run openapi -- --check   (exit 1 when a committed file is out of date)
 * test/docs/artifacts.test.ts fails when the committed files differ from these.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withErrorTable } from '../src/platform/error-table';
import { clientRetryModule, withRetryRules } from '../src/platform/retry-table';
import { buildPosOpenApi } from '../src/pos/openapi';
import { buildLoyaltyOpenApi } from '../src/sandbox/openapi';

export const ROOT = path.resolve(__dirname, '..');
export const POS_DOCUMENT = 'openapi/pos-v1.json';
export const LOYALTY_DOCUMENT = 'openapi/loyalty-v4.json';
export const POS_CLIENT_TYPES = 'clients/pos-v1.d.ts';
export const CLIENT_RETRY_RULES = 'clients/retry-rules.ts';

const json = (doc: object) => `${JSON.stringify(doc, null, 2)}\n`;

/** The two documents, by path relative to the repository root, with their exact content. */
export function generateDocuments(): Record<string, string> {
  return { [POS_DOCUMENT]: json(buildPosOpenApi()), [LOYALTY_DOCUMENT]: json(buildLoyaltyOpenApi()) };
}

/** Till client types from the cashier document. */
export async function generateClientTypes(posDocument: string): Promise<string> {
  // Loaded here, not at the top: it pulls in ESM-only modules that a CommonJS test runner cannot load.
  const { default: openapiTS, astToString, COMMENT_HEADER, NEVER } = await import('openapi-typescript');
  const pos = JSON.parse(posDocument) as { info: { version: string } };
  const ast = await openapiTS(pos as never, {
    rootTypes: true,
    rootTypesNoSchemaPrefix: true,
    exportType: true,
    alphabetize: true,
    // A field an "exactly one of" variant must not have (`not: {}`, src/pos/fields.ts `absent`) is `never`, so two choices do not compile.
    transform: (schema) => {
      const not = (schema as { not?: unknown }).not;
      return not && typeof not === 'object' && Object.keys(not).length === 0 ? NEVER : undefined;
    },
  });
  const header = COMMENT_HEADER.replace(
    ' */',
    ` *\n * Types of the POS cashier API (${pos.info.version}) for till developers, from ${POS_DOCUMENT}.\n * Regenerate with \`npm run openapi\`.\n */`,
  );
  return header + astToString(ast);
}

/** Every generated file, by path relative to the repository root, with its exact content. */
export async function generateArtifacts(): Promise<Record<string, string>> {
  const docs = generateDocuments();
  const readme = withRetryRules(withErrorTable(readFileSync(path.join(ROOT, 'docs/till-developer.md'), 'utf8')));
  return {
    ...docs,
    [POS_CLIENT_TYPES]: await generateClientTypes(docs[POS_DOCUMENT]),
    [CLIENT_RETRY_RULES]: clientRetryModule(),
    'docs/till-developer.md': readme,
  };
}

function read(file: string): string | undefined {
  try {
    return readFileSync(path.join(ROOT, file), 'utf8');
  } catch {
    return undefined;
  }
}

async function main(argv: string[]): Promise<void> {
  const artifacts = await generateArtifacts();
  const stale = Object.keys(artifacts).filter((f) => read(f) !== artifacts[f]);
  if (argv.includes('--check')) {
    if (stale.length) {
      process.stderr.write(`Out of date (run npm run openapi): ${stale.join(', ')}\n`);
      process.exit(1);
    }
    process.stdout.write('OpenAPI documents and client types are up to date\n');
    return;
  }
  for (const [file, content] of Object.entries(artifacts)) writeFileSync(path.join(ROOT, file), content);
  process.stdout.write(`Wrote ${Object.keys(artifacts).join(', ')}${stale.length ? '' : ' (unchanged)'}\n`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
