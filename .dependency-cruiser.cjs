/**
 * Import rules, checked by `npm run lint` (after Biome) with dependency-cruiser:
 * - no import cycles anywhere;
 * - src/ (the published package) imports nothing from the example app, the scripts, the
 *   benchmarks or the examples.
 * Type-only imports count: a cycle through types still ties the modules together.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles: modules that import each other, directly or through others.',
      // Temporary exception: the known cycle src/worker/firing.ts <-> src/worker/processor.ts,
      // which the worker split (issue 13, branch h-shape) removes. Delete this `from.pathNot`
      // and the `no-circular-known-pair` rule below once it is merged.
      from: { pathNot: '^src/worker/(firing|processor)\\.ts$' },
      to: { circular: true },
    },
    {
      name: 'no-circular-known-pair',
      severity: 'error',
      comment:
        'Temporary (see no-circular): firing.ts and processor.ts may import each other, but no third module may join their cycle.',
      from: { path: '^src/worker/(firing|processor)\\.ts$' },
      to: { circular: true, pathNot: '^src/worker/(firing|processor)\\.ts$' },
    },
    {
      name: 'src-stays-in-src',
      severity: 'error',
      comment:
        'src/ is the published package: it must not import the example app (infra/), scripts/, bench/, examples/ or functions/.',
      from: { path: '^src/' },
      to: { path: '^(infra|scripts|bench|examples|functions)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|cdk\\.out|coverage|\\.tasklane)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'],
    },
  },
};
