/**
 * The layout's import rules (docs/DESIGN.md, "Where things live"), checked by
 * `npm run lint:deps` (part of `npm test`). Type-only imports count too.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circles',
      severity: 'error',
      comment: 'A circle makes two modules one: neither can be read, tested or moved alone.',
      from: { path: '^src/(pos|upstream|platform|contract)/' },
      to: { circular: true },
    },
    {
      name: 'contract-stands-alone',
      severity: 'error',
      comment: "The loyalty service's interface depends on nothing of ours.",
      from: { path: '^src/contract/' },
      to: { path: '^src/', pathNot: '^src/contract/' },
    },
    {
      name: 'platform-below-everything',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(pos|upstream|sandbox)/' },
    },
    {
      name: 'upstream-knows-no-till',
      severity: 'error',
      comment: 'The client of the loyalty service serves the BFF; it does not know it.',
      from: { path: '^src/upstream/' },
      to: { path: '^src/(pos|sandbox)/' },
    },
    {
      name: 'sandbox-stands-apart',
      severity: 'error',
      comment: 'The sandbox plays the loyalty service: it shares the contract, never the BFF or its client.',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/(pos|upstream)/' },
    },
    {
      name: 'money-machinery-knows-no-feature',
      severity: 'error',
      comment: 'The claim step, state machines, repairs and the versioned-record store are shared by the money features and depend on none.',
      from: { path: '^src/pos/money/' },
      to: { path: '^src/pos/', pathNot: '^src/pos/money/' },
    },
    {
      name: 'audit-declared-by-the-use-case',
      severity: 'error',
      comment: 'An audited action declares its audit in its use case (a money action as its `audit`, any other call inside `audited`); route entries never do.',
      from: { path: '^src/pos/[^/]+/routes\\.ts$' },
      to: { path: '^src/pos/audit/record\\.ts$' },
    },
    {
      name: 'shared-shapes-below-everything',
      severity: 'error',
      comment: "The field shapes and answers several features share sit below them all; a feature's own shapes live in its schemas.ts.",
      from: { path: '^src/pos/(fields|answers)\\.ts$' },
      to: { path: '^src/pos/' },
    },
    {
      name: 'examples-are-values',
      severity: 'error',
      comment: "A feature's OpenAPI examples are plain values: they may use another feature's example ids, never code.",
      from: { path: '^src/pos/[^/]+/examples\\.ts$' },
      to: { path: '^src/', pathNot: '^src/pos/[^/]+/examples\\.ts$' },
    },
    {
      name: 'nothing-imports-the-top',
      severity: 'error',
      comment:
        'The assembly (app, server, the route table, the document made from the table, the ops endpoints, the command-line programs) puts the features together; a feature importing it runs back up. The layer check (scripts/pos-layers.ts) leaves these out, so this rule is what keeps them on top.',
      from: {
        path: '^src/pos/',
        pathNot: '^src/pos/(app|server|routes|deps)\\.ts$|^src/pos/openapi/index\\.ts$|^src/pos/http/ops\\.ts$|^src/pos/[^/]+/cli\\.ts$',
      },
      to: { path: '^src/pos/(app|server|routes)\\.ts$|^src/pos/openapi/index\\.ts$|^src/pos/http/ops\\.ts$|^src/pos/[^/]+/cli\\.ts$' },
    },
    {
      name: 'use-cases-name-their-parts',
      severity: 'error',
      comment:
        'PosDeps is the whole set the assembly builds; a use case names the parts it uses (src/pos/context.ts, its own stores), so it never imports the whole.',
      from: { path: '^src/pos/', pathNot: '^src/pos/(app|server|routes|deps)\\.ts$' },
      to: { path: '^src/pos/deps\\.ts$' },
    },
    {
      name: 'routes-only-in-the-table',
      severity: 'error',
      comment: "A feature's route entries are read by the route table alone; use cases do not call routes.",
      from: { path: '^src/pos/', pathNot: '^src/pos/routes\\.ts$' },
      to: { path: '^src/pos/[^/]+/routes\\.ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
