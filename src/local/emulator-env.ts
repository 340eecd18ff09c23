/**
 * The environment of processes that talk to an emulator. Its job is to make sure that
 * nothing meant for the emulator reaches AWS, and nothing of the developer's real AWS
 * session reaches the emulator (docs/security.md, "The dev harness").
 */
import { ConfigurationError } from '../core/errors.js';
import { type DescribedLocation, locationEnvironment } from '../settings/location.js';

/**
 * Variables removed from an emulator process's environment (besides every
 * `AWS_ENDPOINT_URL_<SERVICE>`), and `unset` by the env file of `tasklane dev`:
 * - a session token (the SDK would sign with it beside the dummy keys and send it along);
 * - profiles and web-identity/container credential settings, which could supply real
 *   credentials;
 * - `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS`, which makes the SDK ignore `AWS_ENDPOINT_URL`
 *   and go to AWS; every `AWS_ENDPOINT_URL_<SERVICE>`, which overrides it for one service.
 */
export const EMULATOR_CLEARED_VARIABLES = [
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
] as const;
const SERVICE_ENDPOINT = /^AWS_ENDPOINT_URL_/;

/** The access key id of the dummy credentials (the emulator reports it as the SenderId). */
export const EMULATOR_ACCESS_KEY_ID = 'test';

/**
 * Refuses any endpoint that is not on this machine: `localhost`, `127.0.0.0/8` or `[::1]`,
 * over http or https. Dummy credentials, and whatever else a dev process holds, then never
 * leave it.
 *
 * @throws ConfigurationError naming the endpoint and what is accepted.
 */
export function assertLoopbackEndpoint(endpoint: string): void {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (url !== undefined && isLoopback(url)) return;
  throw new ConfigurationError(
    `${JSON.stringify(endpoint)} is not a loopback endpoint; emulator clients use dummy credentials and may only talk to http(s)://localhost, 127.0.0.0/8 or [::1].`,
    { endpoint },
  );
}

function isLoopback(url: URL): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]') return true;
  const octets = host.split('.');
  return (
    octets.length === 4 &&
    octets[0] === '127' &&
    octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)
  );
}

/**
 * Variables that point AWS SDK v3 clients at `endpoint` with dummy credentials. Setting
 * these is not enough on its own: apply them with {@link applyEmulatorEnvironment}, which
 * also clears the variables that would undo them.
 *
 * @throws ConfigurationError when `endpoint` is not a loopback address.
 */
export function emulatorEnvironment(endpoint: string): Record<string, string> {
  assertLoopbackEndpoint(endpoint);
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: EMULATOR_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: 'test',
  };
}

/** The variables of `env` that {@link applyEmulatorEnvironment} deletes. */
export function clearedVariables(env: NodeJS.ProcessEnv): string[] {
  const names = new Set<string>(
    EMULATOR_CLEARED_VARIABLES.filter((name) => env[name] !== undefined),
  );
  for (const name of Object.keys(env)) if (SERVICE_ENDPOINT.test(name)) names.add(name);
  return [...names].sort();
}

/**
 * Points `env` (by default this process's) at the emulator: sets
 * {@link emulatorEnvironment}'s variables and deletes those that would send requests, or a
 * real session token, elsewhere. Returns the previous values, to restore them with
 * {@link restoreEnvironment}.
 *
 * @throws ConfigurationError when `endpoint` is not a loopback address (nothing is changed).
 */
export function applyEmulatorEnvironment(
  endpoint: string,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string | undefined> {
  const values = emulatorEnvironment(endpoint);
  const previous: Record<string, string | undefined> = {};
  for (const name of clearedVariables(env)) {
    previous[name] = env[name];
    delete env[name];
  }
  for (const [name, value] of Object.entries(values)) {
    previous[name] = env[name];
    env[name] = value;
  }
  return previous;
}

/** Puts back what {@link applyEmulatorEnvironment} changed. */
export function restoreEnvironment(
  previous: Readonly<Record<string, string | undefined>>,
  env: NodeJS.ProcessEnv = process.env,
): void {
  for (const [name, value] of Object.entries(previous)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
}

/**
 * Everything another process needs to use an executor in the emulator: the emulator's
 * variables ({@link emulatorEnvironment}) and the `TASKLANE_*` ones of its location.
 *
 * @throws ConfigurationError when `endpoint` is not a loopback address.
 */
export function executorEnvironment(
  endpoint: string,
  location: DescribedLocation,
): Record<string, string> {
  return { ...emulatorEnvironment(endpoint), ...locationEnvironment(location) };
}
