/**
 * `npm run api-report` (and the last step of `npm run lint`): the API report of each entry
 * point, `etc/<entry>.api.md`, made by API Extractor from the declarations tsc emits.
 *
 * It fails when a report differs from the checked-in one, so a change of the public surface
 * (a name added, removed or retyped in any of the package's doors) shows in review as a diff
 * of `etc/`. `--update` writes the new reports instead; commit them with the change.
 */
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
} from '@microsoft/api-extractor';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Each entry point of package.json's `exports`: its report's name and its source. */
const ENTRY_POINTS = [
  { report: 'tasklane', source: 'index' },
  { report: 'tasklane-cdk', source: 'cdk/index' },
  { report: 'tasklane-local', source: 'local/index' },
  { report: 'tasklane-local-testing', source: 'local/testing/index' },
] as const;

/** Emits the package's declarations (only) into `outDir`, as the build's tsc would. */
function emitDeclarations(outDir: string): void {
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const args = ['-p', 'tsconfig.build.json', '--emitDeclarationOnly'];
  args.push('--sourceMap', 'false', '--inlineSources', 'false');
  const run = spawnSync(process.execPath, [tsc, ...args, '--outDir', outDir], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`tsc --emitDeclarationOnly exited with ${run.status}`);
}

/** One entry point's report: true when it matches the checked-in one (or was updated). */
function report(types: string, entry: (typeof ENTRY_POINTS)[number], update: boolean): boolean {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: path.join(types, `${entry.source}.d.ts`),
      compiler: { tsconfigFilePath: path.join(ROOT, 'tsconfig.build.json') },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder: path.join(ROOT, 'etc'),
        reportTempFolder: path.join(types, '..', 'report'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The doc comments are JSDoc for editors, not TSDoc: their syntax is not checked.
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        extractorMessageReporting: {
          // The package has no alpha/beta/public tiers: every exported name is supported.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
          // Fields documented by their interface's comment are fine (STYLE: JSDoc on exports).
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          // Anything else (e.g. a type used by the API but not exported) is noted in the
          // report itself, where review sees it.
          default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        },
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      },
    },
    configObjectFullPath: path.join(ROOT, 'api-extractor.json'),
    packageJsonFullPath: path.join(ROOT, 'package.json'),
  });
  const result = Extractor.invoke(config, {
    localBuild: update,
    messageCallback: (message: ExtractorMessage) => {
      // Only what needs a decision is printed: the report's own diff says what changed.
      if (message.messageId === 'console-api-report-copied')
        message.logLevel = ExtractorLogLevel.None;
    },
  });
  if (!result.succeeded || (!update && result.apiReportChanged)) {
    console.error(
      `etc/${entry.report}.api.md: the public API of ${entry.source}.ts changed. If that is ` +
        'intended, run `npm run api-report -- --update` and commit etc/ with the change.',
    );
    return false;
  }
  return true;
}

async function main(): Promise<void> {
  const update = process.argv.includes('--update');
  // Inside the project (not node_modules, whose files count as other packages'), so the
  // report names files by their path in it, the same on every machine.
  const dir = path.join(ROOT, '.tasklane/api-report');
  await rm(dir, { recursive: true, force: true });
  try {
    const types = path.join(dir, 'types');
    emitDeclarations(types);
    const results = ENTRY_POINTS.map((entry) => report(types, entry, update));
    if (results.includes(false)) process.exitCode = 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
