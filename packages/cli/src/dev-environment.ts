/**
 * The environment `tasklane dev` hands to other shells and to the user's task module: every
 * variable that points the AWS SDK, a `TaskClient` and `tasklane` at the local executor
 * (endpoint, region, dummy credentials, the `TASKLANE_*` location), and the removal of those
 * that would undo them or carry a real AWS session along.
 */
import { shellWord } from './shell.js';

/**
 * Variables removed where the executor's environment applies, as `tasklane/local` clears
 * them for its own processes: a real session token (it would be sent beside the dummy keys),
 * profiles and web-identity or container credential settings (they could supply real
 * credentials), and anything that sends a service's requests somewhere other than
 * `AWS_ENDPOINT_URL`.
 */
export const UNSET_FOR_EMULATOR: readonly string[] = [
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
  'AWS_PROFILE',
  'AWS_DEFAULT_PROFILE',
  'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_ROLE_SESSION_NAME',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
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
