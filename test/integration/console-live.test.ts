/**
 * The console's live channel (`/live`, server-sent events) and its assets, in process: the
 * channel is guarded exactly as the pages are, and sends only what changed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../packages/cli/src/console/server.js';
import type { TaskClient } from '../../src/client/task-client.js';
import { testClients } from '../helpers/aws.js';
import { SEEDED } from '../helpers/console.js';
import {
  browse,
  consoleApp,
  countingClient,
  seededExecutor,
  TEST_CSRF,
} from '../helpers/console-app.js';
import type { TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let client: TaskClient;

beforeAll(async () => {
  ({ executor, client } = await seededExecutor());
});

/** Reads a stream's events until `enough` says so (or `ms` pass), then cancels it. */
async function events(
  res: Response,
  enough: (events: { event: string; data: string }[]) => boolean,
  ms = 10_000,
): Promise<{ event: string; data: string }[]> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const out: { event: string; data: string }[] = [];
  let text = '';
  const deadline = Date.now() + ms;
  let pending = reader.read();
  while (!enough(out) && Date.now() < deadline) {
    // Woken every 200 ms too: `enough` may look at more than the events.
    const next = await Promise.race([
      pending,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200)),
    ]);
    if (next === undefined) continue;
    pending = reader.read();
    const { value, done } = next;
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end = text.indexOf('\n\n');
    while (end >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      out.push({ event, data });
      end = text.indexOf('\n\n');
    }
  }
  await reader.cancel();
  return out;
}

describe('console GET /live', () => {
  it('refuses a stream another site opens, before any AWS call', async () => {
    // Arrange
    const counted = countingClient(executor);
    const app = consoleApp(counted.client);

    // Act
    const crossSite = await browse(app, '/live?page=/', { site: 'cross-site' });
    const sameSite = await browse(app, '/live?page=/', { site: 'same-site' });
    const otherOrigin = await browse(app, '/live?page=/', { origin: 'http://evil.example' });

    // Assert
    expect([crossSite.status, sameSite.status, otherOrigin.status]).toEqual([403, 403, 403]);
    expect(counted.calls()).toBe(0);
  });

  it('asks for the session like every page, before any AWS call', async () => {
    // Arrange
    const counted = countingClient(executor);
    const app = consoleApp(counted.client, { accessToken: 'a-token-of-sixteen-chars' });

    // Act
    const res = await browse(app, '/live?page=/', { site: 'same-origin' });

    // Assert
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('Sign in');
    expect(counted.calls()).toBe(0);
  });

  it('streams a task page’s regions that differ from those shown, and the overview’s charts', async () => {
    // Arrange
    const app = consoleApp(client);
    const page = await (await browse(app, `/tasks/${SEEDED.reports[0]}`)).text();
    const shown = [...page.matchAll(/data-region="([^"]+)" data-digest="([^"]+)"/g)]
      .map(([, id, digest]) => `${id}:${digest}`)
      .filter((pair) => !pair.startsWith('task-history:'));

    // Act
    const task = await browse(
      app,
      `/live?page=${encodeURIComponent(`/tasks/${SEEDED.reports[0]}`)}&shown=${encodeURIComponent(shown.join(','))}`,
      { site: 'same-origin' },
    );
    const taskEvents = await events(task, (e) => e.some((x) => x.event === 'region'), 5000);
    const overview = await browse(app, '/live?page=%2F', { site: 'same-origin' });
    const overviewEvents = await events(overview, (e) => e.some((x) => x.event === 'charts'));

    // Assert
    expect(task.headers.get('content-type')).toContain('text/event-stream');
    const regions = taskEvents
      .filter((e) => e.event === 'region')
      .map((e) => JSON.parse(e.data).id);
    expect(regions).toEqual(['task-history']);
    const charts = JSON.parse(overviewEvents.find((e) => e.event === 'charts')?.data ?? '{}');
    expect(charts).toMatchObject({ source: 'records', stepMs: 60_000 });
    expect(charts.times).toHaveLength(60);
    expect(charts.series.succeeded.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    expect(
      overviewEvents.some((e) => e.event === 'region' && e.data.includes('"id":"counts"')),
    ).toBe(true);
  });

  it('reads the dead-letter queue and scans the finished tasks once, not at every tick', async () => {
    // Arrange: a client that counts the requests it sends, by command.
    const clients = testClients();
    const sent: string[] = [];
    const record = { step: 'initialize', name: 'recordCommands' } as const;
    clients.sqs.middlewareStack.add(
      (next, context) => (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      record,
    );
    clients.dynamodb.middlewareStack.add(
      (next, context) => (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      record,
    );
    const app = createConsoleApp({
      client: executor.client({ ...clients, deadLetterQueueUrl: executor.deadLetterQueueUrl }),
      csrfToken: TEST_CSRF,
      readOnly: false,
      accessToken: undefined,
      loopbackOnly: true,
      liveIntervalMs: 100,
    });

    // Act: several ticks of the overview (each counts the index: a Query per partition).
    const count = (name: string) => sent.filter((n) => n === name).length;
    const res = await browse(app, '/live?page=%2F', { site: 'same-origin' });
    const ticks = await events(res, () => count('QueryCommand') >= 250, 20_000);

    // Assert
    expect(ticks.some((e) => e.event === 'charts')).toBe(true);
    expect(count('QueryCommand')).toBeGreaterThanOrEqual(250);
    expect(count('GetQueueAttributesCommand')).toBe(1);
    // One Scan for the counts, and the charts' reads of the records.
    const chartScans = count('ScanCommand') - 1;
    expect(chartScans).toBeLessThanOrEqual(2);
  });

  it('answers 404 for an address that has no live view', async () => {
    // Act
    const res = await browse(consoleApp(client), '/live?page=%2Fconfirm', { site: 'same-origin' });

    // Assert
    expect(res.status).toBe(404);
  });
});

describe('console GET /assets', () => {
  it('serves its script, stylesheet and chart library without a session, and nothing else', async () => {
    // Arrange
    const app = consoleApp(client, { accessToken: 'a-token-of-sixteen-chars' });

    // Act
    const script = await browse(app, '/assets/console.js', { site: 'same-origin' });
    const library = await browse(app, '/assets/uplot.js', { site: 'same-origin' });
    const style = await browse(app, '/assets/console.css', { site: 'same-origin' });
    const other = await browse(app, '/assets/..%2Fserver.ts', { site: 'same-origin' });
    const page = await browse(consoleApp(client), '/', { site: 'same-origin' });

    // Assert
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect(await script.text()).toContain('new EventSource(');
    expect(await library.text()).toContain('uPlot');
    expect(style.headers.get('content-type')).toContain('text/css');
    expect(other.status).toBe(404);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("style-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toContain('<style');
    expect(html).not.toContain(' style="');
  });
});
