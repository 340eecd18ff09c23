/** Drives the console's Hono app in-process, as a browser would, for integration tests. */
import type { Hono } from 'hono';
import type { TaskClient } from '../../src/client/task-client.js';
import { createConsoleApp } from '../../src/console/server.js';

/** The CSRF token the test apps use. */
export const TEST_CSRF = 'test-csrf-token-0123456789';

/** A console app over `client`, loopback-only, with the given overrides. */
export function consoleApp(
  client: TaskClient,
  options: { readOnly?: boolean; accessToken?: string } = {},
): Hono {
  return createConsoleApp({
    client,
    csrfToken: TEST_CSRF,
    readOnly: options.readOnly ?? false,
    accessToken: options.accessToken,
    loopbackOnly: true,
  });
}

/** POSTs a form (repeated fields as arrays) and returns the response. */
export function postForm(
  app: Hono,
  path: string,
  fields: Record<string, string | readonly string[]>,
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const v of typeof value === 'string' ? [value] : value) body.append(name, v);
  }
  return Promise.resolve(
    app.request(path, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
  );
}

/** The CSRF token embedded in a page's action form, if any. */
export function csrfIn(page: string): string | undefined {
  return /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
}
