/**
 * Finds the bundled Lambda assets in a synthesized cloud assembly (cdk.out), with their
 * esbuild metafiles. Used by `npm run synth` to print bundle sizes, and by the local deploy
 * test to run the very bundle that was uploaded.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type BundleMetafile, bundleLoad } from './bundle-load.js';

/** One bundled function of a stack. */
export interface FunctionAsset {
  /** The function's construct path, e.g. `TasklaneExample/Executor/Worker/Function`. */
  readonly constructPath: string;
  /** The function's logical id in the template. */
  readonly logicalId: string;
  /** Absolute path of the asset directory. */
  readonly directory: string;
  /** Absolute path of the bundle's entry file (`index.mjs`). */
  readonly entryFile: string;
  /**
   * JavaScript bytes loaded at cold start, from esbuild's metafile: the entry file and the
   * chunks it imports statically (a split worker loads its other chunks on first use).
   */
  readonly bytes: number;
  /** JavaScript bytes of every file of the bundle. */
  readonly totalBytes: number;
  /** Input files esbuild bundled. */
  readonly inputs: number;
  /**
   * Packages the bundle imports rather than contains (Node built-ins left out), e.g.
   * `@aws-sdk/client-sqs`: the Lambda runtime must provide them.
   */
  readonly externals: readonly string[];
}

interface TemplateResource {
  readonly Type: string;
  readonly Metadata?: Record<string, unknown>;
}

/**
 * The bundled functions of `stackName` in the cloud assembly at `outdir`.
 *
 * @throws Error when the template is missing; functions whose asset has no metafile are
 * left out.
 */
export function functionAssets(outdir: string, stackName: string): FunctionAsset[] {
  const templateFile = path.join(outdir, `${stackName}.template.json`);
  const template = JSON.parse(readFileSync(templateFile, 'utf8')) as {
    Resources: Record<string, TemplateResource>;
  };
  const assets: FunctionAsset[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || typeof assetPath !== 'string') continue;
    const directory = path.resolve(outdir, assetPath);
    const metafileName = path.join(directory, 'index.meta.json');
    if (!existsSync(metafileName)) continue;
    const metafile = JSON.parse(readFileSync(metafileName, 'utf8')) as BundleMetafile;
    const load = bundleLoad(metafile);
    const cdkPath = String(resource.Metadata?.['aws:cdk:path'] ?? logicalId);
    assets.push({
      constructPath: cdkPath.replace(/\/Resource$/, ''),
      logicalId,
      directory,
      entryFile: path.join(directory, path.basename(load.entry)),
      bytes: load.startBytes,
      totalBytes: load.totalBytes,
      inputs: Object.keys(metafile.inputs).length,
      externals: [...new Set([...load.startExternals, ...load.laterExternals])].sort(),
    });
  }
  return assets;
}
