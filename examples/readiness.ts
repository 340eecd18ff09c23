/**
 * The README's readiness checks: `assertReady()` at startup, which throws, and `check()` in a
 * health check, which reports. Type-checked in CI; in an application, import from 'tasklane'.
 */
import { TaskClient } from '../src/index.js';

const client = new TaskClient();

// At startup: throws ConfigurationError listing every problem (`error.problems`).
await client.assertReady();

// In a health check: never throws for a missing resource; says what is wrong.
export async function health(): Promise<{ status: number; body: string }> {
  const { ok, checked, problems } = await client.check();
  if (ok) return { status: 200, body: `ok: ${checked.join(', ')}` };
  return { status: 503, body: problems.map((p) => p.message).join('\n') };
}
