/** Drives the console's Hono app in-process, as a browser would, for integration tests. */
import type { Hono } from 'hono';
import { createConsoleApp } from '../../packages/cli/src/console/server.js';
import type { TaskClient } from '../../src/client/task-client.js';
import { testClients } from './aws.js';
import { fragileState, fragileTask, reportTask, seedTasks } from './console.js';
import { setupExecutor, type TestExecutor } from './executor.js';

/** The CSRF token the test apps use. */
export const TEST_CSRF = 'test-csrf-token-0123456789';

/** The console's origin as the test apps are addressed (Hono's default request URL). */
export const TEST_ORIGIN = 'http://localhost';

/** A console app over `client`, loopback-only, with the given overrides. */
export function consoleApp(
  client: TaskClient,
  options: { readOnly?: boolean; accessToken?: string; clock?: () => number } = {},
): Hono {
  return createConsoleApp({
    client,
    csrfToken: TEST_CSRF,
    readOnly: options.readOnly ?? false,
    accessToken: options.accessToken,
    loopbackOnly: true,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
}

/** What a browser says of a request's initiator (Fetch Metadata), and its cookie. */
export interface BrowserHeaders {
  /** `Sec-Fetch-Site`: `same-origin` for the console's own pages. */
  readonly site?: 'same-origin' | 'same-site' | 'cross-site' | 'none';
  readonly origin?: string;
  readonly referer?: string;
  readonly cookie?: string;
}

/** A GET with the headers a browser would send. */
export function browse(app: Hono, path: string, headers: BrowserHeaders = {}): Promise<Response> {
  return Promise.resolve(app.request(path, { headers: browserHeaders(headers) }));
}

/** POSTs a form (repeated fields as arrays) and returns the response. */
export function postForm(
  app: Hono,
  path: string,
  fields: Record<string, string | readonly string[]>,
  headers: BrowserHeaders = {},
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const v of typeof value === 'string' ? [value] : value) body.append(name, v);
  }
  return Promise.resolve(
    app.request(path, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...browserHeaders(headers),
      },
    }),
  );
}

function browserHeaders(headers: BrowserHeaders): Record<string, string> {
  return {
    ...(headers.site === undefined ? {} : { 'sec-fetch-site': headers.site }),
    ...(headers.origin === undefined ? {} : { origin: headers.origin }),
    ...(headers.referer === undefined ? {} : { referer: headers.referer }),
    ...(headers.cookie === undefined ? {} : { cookie: headers.cookie }),
  };
}

/** The CSRF token embedded in a page's action form, if any. */
export function csrfIn(page: string): string | undefined {
  return /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
}

/** Every value of a hidden field in a page's form, in order. */
export function hiddenValues(page: string, name: string): string[] {
  const pattern = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`, 'g');
  return [...page.matchAll(pattern)].map((m) => m[1] ?? '');
}

/**
 * A client of the executor whose AWS clients count the requests they send: a page that must
 * do no work for a request is one after which the count has not moved.
 */
export function countingClient(executor: TestExecutor): { client: TaskClient; calls(): number } {
  let calls = 0;
  const clients = testClients();
  const count = { step: 'initialize', name: 'countRequests' } as const;
  clients.dynamodb.middlewareStack.add(
    (next) => (args) => {
      calls += 1;
      return next(args);
    },
    count,
  );
  clients.sqs.middlewareStack.add(
    (next) => (args) => {
      calls += 1;
      return next(args);
    },
    count,
  );
  clients.scheduler.middlewareStack.add(
    (next) => (args) => {
      calls += 1;
      return next(args);
    },
    count,
  );
  return { client: executor.client(clients), calls: () => calls };
}

/**
 * An executor on the emulator holding the console's seeded tasks, with their first deliveries
 * drained (so DEAD, retried and succeeded tasks are there), and a client of it.
 */
export async function seededExecutor(): Promise<{ executor: TestExecutor; client: TaskClient }> {
  const executor = await setupExecutor();
  const client = executor.client();
  fragileState.healthy = false;
  await seedTasks(client);
  await executor.drain(executor.worker([reportTask, fragileTask]));
  return { executor, client };
}
