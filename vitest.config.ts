/**
 * The projects, all run by `vitest run` (`npm test`):
 * - unit: pure, no network, files in parallel.
 * - bench: the benchmark harness's own unit tests (bench/test), beside the code they test.
 * - infra: CDK Template assertions, cdk-nag and cfn-lint over the synthesized stack; no emulator.
 *   Its global setup builds the sweeper's bundle, which the construct deploys as it is.
 * - integration: against moto, one emulator per test worker (globalSetup), which each file
 *   resets; files run two at a time, never two on one emulator (test/helpers/endpoint.ts).
 * - contract: the AWS behaviours the guarantees rely on, checked against whatever endpoint
 *   AWS_ENDPOINT_URL names (moto through the harness by default); same setup as integration.
 * - contract-ministack: the same files on MiniStack (TASKLANE_EMULATOR=ministack), installed
 *   into .tasklane/venv-ministack on first use.
 * - browser: the web console in Debian's Chromium (playwright-core), against a local executor
 *   on an emulator of its own, so the other projects' resets cannot touch it.
 * - deploy: the example stack deployed into the emulator with the CDK CLI and used (about 40 s);
 *   same setup as integration.
 * With AWS_ENDPOINT_URL set (LocalStack, a running moto, an account), every file shares that
 * one endpoint, so integration, contract and deploy run their files one at a time, after the
 * others. Vitest's default is one worker on a 2-core machine; two keep both cores busy, since
 * most of an emulator test's time is moto's, in a process of its own.
 * CI (.ci/run) runs the projects in two steps, `npm run test:fast` (unit, bench, infra) and
 * `npm run test:emulator` (integration, contract, deploy, browser): a new project belongs in one
 * of them. MiniStack's own schedule firing and TTL (test/ministack), which wait on the engine's
 * clocks, are a suite of their own: vitest.engines.config.ts, `npm run test:engines`.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

/** One emulator shared by every file: its files must not reset it under one another. */
const sharedEndpoint = Boolean(process.env.AWS_ENDPOINT_URL);

export default defineConfig({
  // The CLI package imports the SDK by name: its sources here, as tsconfig.json's paths say.
  // Every project extends this (`extends: true`).
  resolve: {
    alias: [
      { find: /^tasklane$/, replacement: path.resolve(import.meta.dirname, 'src/index.ts') },
      {
        find: /^tasklane\/local$/,
        replacement: path.resolve(import.meta.dirname, 'src/local/index.ts'),
      },
    ],
  },
  test: {
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'bench',
          include: ['bench/test/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          // The emulators, and the CLI's bundle that test/helpers/cli.ts runs.
          globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/cli-bundle-setup.ts'],
          setupFiles: ['test/helpers/setup-integration.ts'],
          fileParallelism: !sharedEndpoint,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'contract',
          include: ['test/contract/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          setupFiles: ['test/helpers/setup-integration.ts'],
          fileParallelism: !sharedEndpoint,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          // The same contract files on MiniStack, the second engine (docs/emulator.md).
          name: 'contract-ministack',
          include: ['test/contract/**/*.test.ts'],
          environment: 'node',
          env: { TASKLANE_EMULATOR: 'ministack' },
          globalSetup: ['test/helpers/global-setup.ts'],
          setupFiles: ['test/helpers/setup-integration.ts'],
          fileParallelism: !sharedEndpoint,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'deploy',
          include: ['test/deploy/**/*.test.ts'],
          environment: 'node',
          // The stack it deploys ships the sweeper's bundle, built afresh here as for infra.
          globalSetup: [
            'test/helpers/global-setup.ts',
            'test/helpers/sweeper-bundle-setup.ts',
            'test/helpers/cli-bundle-setup.ts',
          ],
          setupFiles: ['test/helpers/setup-integration.ts'],
          // The CLI's synth runs the app in this environment: no built-in validation (see infra).
          env: { CDK_VALIDATION: 'false' },
          fileParallelism: !sharedEndpoint,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/sweeper-bundle-setup.ts'],
          // CDK's built-in template validation runs on every synthesis: a WebAssembly engine that
          // takes about 20 s to start in each file and seconds per stack, and whose findings CDK
          // only prints as warnings, which no test reads. cfn-lint.test.ts lints the template.
          env: { CDK_VALIDATION: 'false' },
          // Its files only build fresh Apps and never touch globals, so they share each worker's
          // modules: aws-cdk-lib is loaded once per worker instead of once per file (seconds each).
          isolate: false,
          // Synthesis (and, for cdk-nag, esbuild bundling) and cfn-lint take seconds.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          // One browser and one executor per file, shared by its tests in order.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
