/**
 * Who an operator action is recorded as (docs/adr/0039-operator-audit.md): the caller
 * identity of the client's credentials, asked of STS once per process and kept. Redrive,
 * cancel, purge, key release and schedule changes put it in their audit line and in the
 * history entry they write.
 *
 * When STS cannot answer (an outage, no route to its endpoint, an emulator without it), the
 * action still goes ahead: an operator stopping an incident must not wait on STS. It is
 * recorded as `unknown principal (<why>)` instead, in the same places, and a warning is
 * logged, so the gap is visible where the principal would have been. The next action asks
 * STS again; only an answer is kept.
 */
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { awsClientConfig } from '../aws/clients.js';
import { truncate } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';

/** Returns the principal the next operator action is recorded as. Never throws. */
export type PrincipalSource = () => Promise<string>;

/**
 * How a principal that could not be learned starts: an audit line's `principal` and the
 * history entry of an operator action read `unknown principal (<why>)` when STS did not
 * answer (docs/adr/0039-operator-audit.md).
 */
export const UNKNOWN_PRINCIPAL = 'unknown principal';

/** STS is given this long (all of the SDK's attempts together) before the action goes ahead. */
export const PRINCIPAL_TIMEOUT_MS = 5_000;

/** What {@link stsPrincipal} needs. */
export interface StsPrincipalOptions {
  /** @default a client from the environment, with the SDK's standard retries */
  readonly sts?: STSClient | undefined;
  readonly logger: TaskLogger;
  /** @default {@link PRINCIPAL_TIMEOUT_MS} */
  readonly timeoutMs?: number | undefined;
}

/**
 * The caller identity's ARN (`arn:aws:sts::<account>:assumed-role/<role>/<session>`, or a
 * user's ARN), from one `sts:GetCallerIdentity` call, which needs no IAM permission. Calls
 * made at once share one request; once answered, the ARN is kept for the life of the source.
 */
export function stsPrincipal(options: StsPrincipalOptions): PrincipalSource {
  let sts = options.sts;
  let known: string | undefined;
  let asking: Promise<string> | undefined;
  const timeoutMs = options.timeoutMs ?? PRINCIPAL_TIMEOUT_MS;
  const ask = async (): Promise<string> => {
    sts ??= new STSClient(awsClientConfig());
    try {
      const out = await sts.send(new GetCallerIdentityCommand({}), {
        abortSignal: AbortSignal.timeout(timeoutMs),
      });
      if (out.Arn === undefined || out.Arn === '') throw new Error('STS returned no Arn');
      known = out.Arn;
      return known;
    } catch (err) {
      const reason = `sts:GetCallerIdentity failed: ${describe(err)}`;
      options.logger.warn('operator principal unknown; the action is recorded without it', {
        reason,
      });
      return unknownPrincipal(reason);
    } finally {
      asking = undefined;
    }
  };
  return () => {
    if (known !== undefined) return Promise.resolve(known);
    asking ??= ask();
    return asking;
  };
}

/** A principal given by the caller (a name it vouches for), recorded as it is. */
export function fixedPrincipal(principal: string): PrincipalSource {
  return () => Promise.resolve(principal);
}

/** The principal recorded when it could not be learned, saying why. */
export function unknownPrincipal(reason: string): string {
  return truncate(`${UNKNOWN_PRINCIPAL} (${reason})`, 200);
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const name = err.name === 'AbortError' || err.name === 'TimeoutError' ? 'timed out' : err.name;
  return err.message === '' ? name : `${name}: ${err.message}`;
}
