/**
 * Prints the size of each bundled Lambda function of a synthesized stack, from esbuild's
 * metafile. `npm run synth` runs it after `cdk synth`.
 *
 * Usage: tsx scripts/bundle-size.ts [outdir=cdk.out] [stack=TasklaneExample]
 */
import { functionAssets } from './function-assets.js';

const [outdir = 'cdk.out', stack = 'TasklaneExample'] = process.argv.slice(2);
const assets = functionAssets(outdir, stack);
if (assets.length === 0) {
  console.error(`no bundled functions with an esbuild metafile in ${outdir}/${stack}`);
  process.exitCode = 1;
}
for (const asset of assets) {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes)`;
  console.log(
    `bundle  ${asset.constructPath}: ${kib(asset.bytes)} loaded at start, ${kib(asset.totalBytes)} in all; ${asset.inputs} input files, minified ESM`,
  );
  console.log(`        from the Lambda runtime: ${asset.externals.join(', ') || 'nothing'}`);
}
