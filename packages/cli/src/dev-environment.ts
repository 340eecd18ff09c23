/**
 * The environment `tasklane dev` hands to other shells and to the user's task module: every
 * variable that points the AWS SDK, a `TaskClient` and `tasklane` at the local executor
 * (endpoint, region, dummy credentials, the `TASKLANE_*` location), and the removal of those
 * that would undo them or carry a real AWS session along.
 */
import { EMULATOR_CLEARED_VARIABLES } from 'tasklane/local';
import { shellWord } from './shell.js';

/**
 * Variables removed where the executor's environment applies: those `tasklane/local` clears
 * for its own processes (a real session token, profiles, web-identity or container
 * credential settings), and the per-service endpoint overrides of the services Tasklane
 * calls, which would send a service's requests somewhere other than `AWS_ENDPOINT_URL`
 * (`tasklane/local` removes every `AWS_ENDPOINT_URL_*` it finds; a file sourced in another
 * shell cannot look, so it names them).
 */
export const UNSET_FOR_EMULATOR: readonly string[] = [
  ...EMULATOR_CLEARED_VARIABLES,
  ...[
    'SQS',
    'DYNAMODB',
    'DYNAMODB_STREAMS',
    'SCHEDULER',
    'S3',
    'KMS',
    'EVENTBRIDGE',
    'STS',
    'CLOUDFORMATION',
    'LAMBDA',
    'CLOUDWATCH',
  ].map((service) => `AWS_ENDPOINT_URL_${service}`),
];

/** The `export` lines of `environment`, for a POSIX shell. */
export function exportLines(environment: Readonly<Record<string, string>>): string[] {
  return Object.entries(environment).map(([name, value]) => `export ${name}=${shellWord(value)}`);
}

/** An env file to source (`. <file>`) in a POSIX shell, however bare its environment. */
export function envFile(environment: Readonly<Record<string, string>>, about: string): string {
  return [
    `# ${about}`,
    '# Source it in a shell (. <this file>) to point the AWS SDK, your app and tasklane at it.',
    `unset ${UNSET_FOR_EMULATOR.join(' ')}`,
    ...exportLines(environment),
    '',
  ].join('\n');
}

/** Applies `environment` to this process, as sourcing {@link envFile} would to a shell. */
export function applyToProcess(
  environment: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv = process.env,
): void {
  for (const name of UNSET_FOR_EMULATOR) delete env[name];
  Object.assign(env, environment);
}
