/**
 * Peak memory of the worker's claim-check read path on a payload of a given size: the real
 * `resolvePayload` (ObjectStore's bounded, streamed read; payload hash; JSON.parse), over an
 * S3 client that serves the object from a local file, with no network. Prints the RSS before
 * and the peak, in MiB. The file is made by a process of its own, so that the reading one
 * starts clean:
 *   node --import tsx scripts/claim-check-memory.ts 100 make
 *   node --expose-gc --import tsx scripts/claim-check-memory.ts 100
 */

import { createHash } from 'node:crypto';
import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { ObjectStore } from '../src/claim-check/object-store.js';
import type { TaskRecord } from '../src/core/record.js';
import { resolvePayload } from '../src/worker/claim-check.js';

const MiB = 2 ** 20;
const sizeMiB = Number(process.argv[2] ?? 100);
const file = join(tmpdir(), `claim-check-memory-${sizeMiB}.json`);
if (process.argv[3] === 'make') {
  // Rows like an export's. Made by a process of its own, so that the reading one starts clean.
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < sizeMiB * MiB - 64; i++) {
    const row = `{"id":${i},"sku":"SKU-${i}","qty":1,"note":"n"}`;
    rows.push(row);
    size += row.length + 1;
  }
  writeFileSync(file, `{"rows":[${rows.join(',')}]}`);
  process.exit(0);
}
const bytes = statSync(file).size;
const sha = createHash('sha256');
const typed = createHash('sha256').update('export').update('\0');
for await (const chunk of createReadStream(file)) {
  sha.update(chunk as Buffer);
  typed.update(chunk as Buffer);
}
const s3 = new S3Client({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
s3.middlewareStack.add(
  () => async () => ({
    output: {
      $metadata: {},
      ContentLength: bytes,
      Body: createReadStream(file, { highWaterMark: 1 * MiB }),
    },
    response: {},
  }),
  { step: 'initialize', name: 'local-file' },
);
const record = {
  id: 'm',
  type: 'export',
  payloadHash: typed.digest('hex'),
  payloadRef: { bucket: 'b', key: 'k', size: bytes, sha256: sha.digest('hex') },
} as unknown as TaskRecord;
globalThis.gc?.();
const base = process.memoryUsage().rss;
let peak = base;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 2);
const resolved = await resolvePayload(record, {
  objects: new ObjectStore('b', 65_536, s3),
  maxPayloadBytes: Number.MAX_SAFE_INTEGER,
});
peak = Math.max(peak, process.memoryUsage().rss);
clearInterval(timer);

if (!resolved.ok) throw resolved.error;
const rows = (resolved.value.payload as { rows: unknown[] }).rows.length;
console.log(
  `payload ${(bytes / MiB).toFixed(0)} MiB, ${rows} rows; RSS before ${(base / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB`,
);
