/**
 * Renders RELIABILITY.md again from docs/reliability/results.json, without running the
 * fault suite: `npx tsx test/faults/lib/render-reliability.ts`. For changes to the
 * templates or the renderer; the figures stay those of the recorded runs.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELIABILITY_DATA, readReliabilityData, writeReliability } from './reliability-doc.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const data = await readReliabilityData(path.join(root, RELIABILITY_DATA));
if (data === undefined) {
  console.error(`No results in ${RELIABILITY_DATA}: run npm run test:faults first.`);
  process.exit(1);
}
await writeReliability(root, data);
console.log(`Rendered RELIABILITY.md from ${RELIABILITY_DATA} (${data.results.length} scenarios).`);
