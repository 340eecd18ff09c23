/**
 * Import rules, checked by `npm run lint` (after Biome) with dependency-cruiser:
 * - no import cycles anywhere;
 * - src/ (the published SDK) imports nothing from the example app, the scripts, the
 *   benchmarks, the examples or the CLI package;
 * - packages/cli/ (the CLI and the console) imports the SDK only through `tasklane` and
 *   `tasklane/local`, as an installed package would;
 * - the layers of src/ (docs/adr/0041-module-layout.md): core/ imports nothing internal, and
 *   cdk/ imports only core/, the shared executor settings (settings/) and the named modules
 *   whose constants a deployment must agree with at run time;
 * - outside src/store/, nothing imports the DynamoDB SDK (docs/adr/0045-the-store-owns-dynamodb.md).
 * Type-only imports count: a cycle through types still ties the modules together.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles: modules that import each other, directly or through others.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-stays-in-src',
      severity: 'error',
      comment:
        'src/ is the published SDK: it must not import the example app (infra/), scripts/, bench/, examples/, functions/ or the CLI package (packages/).',
      from: { path: '^src/' },
      to: { path: '^(infra|scripts|bench|examples|functions|packages)/' },
    },
    {
      name: 'core-imports-nothing-internal',
      severity: 'error',
      comment:
        'src/core/ is the domain model (statuses, the record, the errors, the message format): every layer imports it, so it imports no other module of src/.',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'cdk-imports-core-and-settings',
      severity: 'error',
      comment:
        'src/cdk/ is the deploy-time layer: it imports core/, the shared executor settings (settings/), and only these run-time modules, for the names, prefixes and limits the construct must agree with (the IAM conditions, metric names, env vars); each is a candidate to move into settings/ (ADR 0041).',
      from: { path: '^src/cdk/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/(cdk|core|settings)/',
          '^src/claim-check/object-ref[.]ts$',
          '^src/observability/(cost|metrics)[.]ts$',
          '^src/store/(producer-writes|status-index-keys)[.]ts$',
          '^src/tasks/retry-horizon[.]ts$',
          '^src/worker/firing-trust[.]ts$',
        ],
      },
    },
    {
      name: 'cli-uses-the-doors',
      severity: 'error',
      comment:
        'The CLI and the console (the @tasklane/cli package) use the SDK only through its published entry points, `tasklane` and `tasklane/local` (docs/adr/0046-cli-package.md).',
      from: { path: '^packages/cli/' },
      to: {
        path: '^src/',
        pathNot: ['^src/index[.]ts$', '^src/local/index[.]ts$'],
      },
    },
    {
      name: 'no-opentelemetry-import',
      severity: 'error',
      comment:
        "@opentelemetry/api is an optional peer dependency that Tasklane never imports: src/observability/tracing.ts uses what the app registered in the API's global registry, so a bundled worker holds none of it (docs/adr/0050-progress-within-a-second-and-traced-attempts.md).",
      from: { path: '^src/' },
      to: { path: '(^|/)node_modules/@opentelemetry/' },
    },
    {
      name: 'dynamodb-only-in-store',
      severity: 'error',
      comment:
        "DynamoDB is the store's business: outside src/store/, no module of the package imports the DynamoDB SDK (@aws-sdk/client-dynamodb, lib-dynamodb, util-dynamodb, client-dynamodb-streams). The injected client's type, the class to make one, and the table's creation come from src/store/table.ts (docs/adr/0045-the-store-owns-dynamodb.md).",
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: '(^|/)node_modules/@aws-sdk/(client|lib|util)-dynamodb(-streams)?/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|cdk\\.out|coverage|\\.tasklane)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'],
    },
  },
};
