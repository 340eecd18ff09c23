/**
 * `npm run deploy:local`: deploys the example stack into the local emulator with the real
 * CDK CLI (synth, bootstrap, deploy), and prints the outputs an SDK needs.
 *
 * Uses the emulator at AWS_ENDPOINT_URL (a http://localhost:PORT address) when set;
 * otherwise starts moto_server and keeps it running until Ctrl-C, so that the deployed
 * resources can be used. `--once` stops it right after the deployment instead.
 */
import { mkdir } from 'node:fs/promises';
import { deployToEmulator } from '../src/local/deploy.js';
import { type EmulatorHandle, startEmulator } from '../src/local/emulator.js';
import { applyEmulatorEnvironment } from '../src/local/emulator-env.js';

const STACK = 'TasklaneExample';

async function main(): Promise<void> {
  const once = process.argv.includes('--once');
  let emulator: EmulatorHandle | undefined;
  let endpoint = process.env.AWS_ENDPOINT_URL;
  if (endpoint) {
    console.log(`emulator   ${endpoint} (from AWS_ENDPOINT_URL)`);
  } else {
    await mkdir('.tasklane', { recursive: true });
    emulator = await startEmulator({ log: '.tasklane/deploy-local.moto.log' });
    endpoint = emulator.endpoint;
    console.log(`emulator   moto_server at ${endpoint} (log: .tasklane/deploy-local.moto.log)`);
  }
  try {
    applyEmulatorEnvironment(endpoint);
    const deployment = await deployToEmulator({
      endpoint,
      stack: STACK,
      log: (line) => console.log(`  cdk      ${line}`),
    });
    const { synth, bootstrap, deploy } = deployment.timings;
    console.log(
      `\ndeployed   ${STACK} (synth ${synth} s, bootstrap ${bootstrap} s, deploy ${deploy} s)`,
    );
    for (const [key, value] of Object.entries(deployment.executor)) {
      console.log(`  ${key.padEnd(20)} ${value}`);
    }
    console.log(
      '\nThe queue URLs above are on the emulator (its CloudFormation reports them on AWS’s host).',
    );
    if (emulator && !once) {
      console.log(`\nexport AWS_ENDPOINT_URL=${endpoint}   # to use it; Ctrl-C stops the emulator`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
    }
  } finally {
    await emulator?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
