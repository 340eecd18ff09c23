/** The report's header (date, machine, caveats) and its method section. */
import { PROFILES } from '../config.js';
import { duration, table } from './markdown.js';
import type { BenchResults } from './results.js';
import { templateFile } from './template.js';

const headerTemplate = templateFile('header.md');
const methodTemplate = templateFile('method.md');

/** Title, date, and the caveats a reader needs before any number. */
export function header(results: BenchResults): string {
  const { profile, machine } = results;
  return headerTemplate('page', {
    date: results.date.slice(0, 10),
    commit: machine.commit,
    profile: profile.name,
    duration: duration(results.wallMs),
    reps: profile.reps,
    scaled:
      profile.name === 'full'
        ? ''
        : headerTemplate('scaled', {
            sizes: profile.sizes.join(', '),
            fullSizes: PROFILES.full.sizes.join(' + '),
          }),
    loadStart: results.loadAverage.start.toFixed(1),
    loadEnd: results.loadAverage.end.toFixed(1),
    cores: machine.cores,
    moto: machine.moto,
    emulator: headerTemplate(results.emulatorStarted ? 'emulator-patched' : 'emulator-external'),
  });
}

/** How the run was made. */
export function methodSection(results: BenchResults): string {
  const { profile, machine, checks } = results;
  const failed = checks.filter((c) => !c.ok);
  return methodTemplate('section', {
    machine: table(
      ['Machine', ''],
      [
        ['CPU', `${machine.cores} cores, ${machine.cpu}`],
        ['Memory', `${machine.memoryGiB} GiB`],
        ['OS', machine.os],
        ['Node.js', machine.node],
        [
          'Emulator',
          `moto ${machine.moto}${results.emulatorStarted ? ', started by the bench, patched' : ', from AWS_ENDPOINT_URL'}`,
        ],
        ['Bundler', `esbuild ${machine.esbuild}`],
      ],
    ),
    powertoolsSize: results.throughput.powertoolsSize,
    checkCount: checks.length,
    checks:
      failed.length === 0
        ? methodTemplate('checks-passed')
        : methodTemplate('checks-failed', {
            count: failed.length,
            list: failed.map((c) => `${c.name} (${c.detail})`).join('; '),
          }),
    profile: profile.name,
    sizes: profile.sizes.join(', '),
    profilePowertoolsSize: profile.powertoolsSize,
    singleEnqueueTasks: profile.singleEnqueueTasks,
    retryTasks: profile.retryTasks,
    coldInitProcesses: profile.coldInitProcesses,
    reps: profile.reps,
    // Profiles recorded before these scenarios existed lack their sizes.
    measuredSizes:
      profile.awsShaped === undefined
        ? ''
        : methodTemplate('measured-sizes', {
            realisticTasks: profile.realisticTasks,
            featureTasks: profile.featureTasks,
            awsBatch: profile.awsShaped.batchTasks,
            awsSingle: profile.awsShaped.singleTasks,
            awsEndToEnd: profile.awsShaped.endToEndTasks,
            reps: profile.reps,
          }),
  });
}
