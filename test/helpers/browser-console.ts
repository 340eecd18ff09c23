/** Shared pieces of the console's browser tests: Chromium, and where screenshots go. */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** Debian's Chromium, or the one CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Screenshots go to test/browser/__screenshots__ (not committed); with
 * `TASKLANE_DOC_SCREENSHOTS=1` those the docs show go to docs/images/ instead, so a normal
 * run never rewrites the docs' pictures.
 */
const DOCS = process.env.TASKLANE_DOC_SCREENSHOTS === '1';
const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRATCH = path.join(ROOT, 'test/browser/__screenshots__');

/** Saves a full-page screenshot; `doc` names the docs' picture it is (docs/images/<doc>.png). */
export async function screenshot(page: Page, name: string, doc?: string): Promise<void> {
  const target =
    DOCS && doc !== undefined
      ? path.join(ROOT, 'docs/images', `${doc}.png`)
      : path.join(SCRATCH, `${name}.png`);
  await mkdir(path.dirname(target), { recursive: true });
  await page.screenshot({ path: target, fullPage: true });
}
