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
      from: {},
      to: { circular: true },
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
