/**
 * The feature model's oracle: the README's guarantees, judged once the system is drained.
 *
 * Drained: every held CreateSchedule has answered, the faults are off, and the clock has moved
 * in steps past every lease, window, delay and event hold (and once past a parked key's
 * 12-hour hold) with the pump, the sweeper and the workers run after each, until a round
 * changes nothing.
 *
 * An enqueue is *accepted* when it returned (created, folded or found existing). Then:
 * 1. Nothing lost: every accepted task that no purge deleted is SUCCEEDED, DEAD or CANCELLED,
 *    or legitimately held: (a) PENDING or QUEUED behind a parked key, that is a DEAD task of
 *    a parking type, of the same lane and key, created before it (or after it, when its own
 *    send failed), not purged, whose history
 *    has no `key-released` or `redriven` after its last `dead`; or (b) WAITING with a parent
 *    that has not finished: ROLLED_BACK (its enqueue threw), absent, or itself held.
 * 2. One terminal write: terminal history entries ≤ 1 + the redrives that moved it out of
 *    DEAD.
 * 3. Key order: tasks of one key and lane first start in the order they were created (a task
 *    whose send failed may be overtaken: docs/limits.md).
 * 4. Retries bounded: the record's attempt and every start's attempt ≤ maxAttempts; a handler
 *    whose payload says `ok` starts again only after a worker died with it, or a redrive.
 * 5. Dependencies: every start of a dependent saw each parent finished (SUCCEEDED under
 *    `'cancel'`; a parent a purge deleted before the start counts as the DEAD it was); a released task has exactly one `released` entry; a dependent under
 *    `'cancel'` of a parent that ended DEAD or CANCELLED never runs and ends CANCELLED.
 * 6. Outcomes: a task whose payload says `ok` ends SUCCEEDED or CANCELLED, or DEAD only if a
 *    worker died holding it (outages of S3 or EventBridge never spend an attempt); `fail` and
 *    `permanent` never end SUCCEEDED. Each run saw the payload the producers were told it has
 *    (the last fold under `'last'`, the first under `'first'`). A task's starts are those since
 *    it was created: an id purged and enqueued again is a new task.
 * 7. Events: a task a worker ended SUCCEEDED or DEAD had its lifecycle event accepted by
 *    EventBridge at least once.
 */
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import type { FeatureModel, ModelTask } from './feature-model.js';
import {
  FEATURE_MAX_ATTEMPTS,
  type FeatureSystem,
  finished,
  type TaskRecord,
} from './feature-system.js';
import { resumeKey } from './operator-commands.js';
import { PARK_HOLD_EXPIRY_MS } from './runtime-commands.js';

const ROUND_MS = 5 * 60_000 + 1_000;
const MAX_ROUNDS = 8;
const TERMINAL_EVENTS: ReadonlySet<string> = new Set([
  AuditEvent.SUCCEEDED,
  AuditEvent.DEAD,
  AuditEvent.CANCELLED,
]);

/** Settles the held producers, switches the faults off and runs the system until it is quiet. */
export async function drain(m: FeatureModel, r: FeatureSystem): Promise<void> {
  while (m.held.length > 0) await m.held.shift()?.settle();
  r.s3Outage.on = false;
  r.events.refusing = false;
  r.scheduler.disarm();
  let previous = '';
  for (let round = 0; round < MAX_ROUNDS; round++) {
    // The operator resumes every paused key (a run asked to pause may have ended PAUSED since).
    for (const key of keysOf(m, r)) {
      const line = await resumeKey(m, r, key);
      if (!line.startsWith('resumed []')) m.trace.push(`drain round ${round}: ${key}: ${line}`);
    }
    // The second round passes a parked key's 12-hour hold: its held message comes back.
    await r.tick(round === 1 ? PARK_HOLD_EXPIRY_MS : ROUND_MS);
    await r.pumpTick();
    m.trace.push(`drain round ${round}: sweep ${JSON.stringify(await r.sweep())}`);
    let delivered = 0;
    for (const lane of r.lanes()) {
      for (let batch = 0; batch < 30; batch++) {
        const out = await r.deliver(lane, 10, undefined);
        if (out.received.length === 0) break;
        m.trace.push(`  ${lane}: [${out.received.join(', ')}] ${out.writes.join(', ')}`);
        delivered += out.received.length;
      }
    }
    // Quiet: every task finished, or a round (past the hold) that changed none of them.
    const statuses = await Promise.all(
      [...m.tasks.keys()].map(async (id) => `${id}:${(await r.get(id))?.status}`),
    );
    const snapshot = statuses.join(' ');
    m.trace.push(`  statuses: ${short(snapshot.replaceAll(/r\w+-(t\d+)/g, '$1'))}`);
    const allFinished = statuses.every((s) => /:(SUCCEEDED|DEAD|CANCELLED|undefined)$/.test(s));
    if (allFinished && delivered === 0) return;
    if (round >= 1 && delivered === 0 && snapshot === previous) return;
    previous = snapshot;
  }
}

/** The ordering keys of the sequence: its two, and any other its tasks have. */
function keysOf(m: FeatureModel, r: FeatureSystem): Set<string> {
  const keys = new Set([r.key(0), r.key(1)]);
  for (const task of m.tasks.values()) if (task.key !== undefined) keys.add(task.key);
  return keys;
}

/** The guarantees, over every task the sequence accepted; returns the violations. */
export async function judge(m: FeatureModel, r: FeatureSystem): Promise<string[]> {
  const out = [...m.violations];
  const records = new Map<string, TaskRecord | undefined>();
  const read = async (id: string) => {
    if (!records.has(id)) records.set(id, await r.get(id));
    return records.get(id);
  };
  for (const task of m.tasks.values()) {
    await read(task.id);
    for (const p of task.parents) await read(p);
  }
  const live = [...m.tasks.values()].filter((t) => !m.purged.has(t.id));

  const parkedBy = (task: ModelTask): string | undefined =>
    live.find((p) => {
      if (p.type !== 'park' || p.key !== task.key || p.lane !== task.lane) return false;
      // Created after it, the parked task is ahead of it only if its send failed and the
      // sweeper sent it later (docs/limits.md, Ordering).
      if (p.created >= task.created && !task.unsent) return false;
      const rec = records.get(p.id);
      return rec?.status === TaskStatus.DEAD && parkActive(rec);
    })?.id;
  const held = (id: string, depth = 0): boolean => {
    const rec = records.get(id);
    const task = m.tasks.get(id);
    if (rec === undefined) return true;
    if (rec.status === TaskStatus.ROLLED_BACK) return true;
    if (finished(rec.status) || depth > 10) return false;
    if (rec.status === TaskStatus.WAITING) {
      return (rec.parents ?? []).some((p) => {
        const prec = records.get(p);
        return prec === undefined || !finished(prec.status) ? held(p, depth + 1) : false;
      });
    }
    return task !== undefined && task.key !== undefined && parkedBy(task) !== undefined;
  };

  for (const task of live) {
    const rec = records.get(task.id);
    const history = rec?.history ?? [];
    const line = `${task.id} (${task.type}${task.key === undefined ? '' : ` key ${short(task.key)}`}${task.parents.length === 0 ? '' : ` after ${task.parents.map(short).join('+')} ${task.onParentDead}`})`;
    const story = history.map((h) => `${h.event}#${h.attempt}`).join(' > ');
    if (rec === undefined) {
      out.push(`lost: ${line} was accepted, and its record is gone (not purged)`);
      continue;
    }
    // 1. Nothing lost.
    if (!finished(rec.status) && !held(task.id)) {
      const parents = (rec.parents ?? [])
        .map((p) => `${short(p)} ${records.get(p)?.status ?? 'ABSENT'}`)
        .join(', ');
      out.push(
        `lost: ${line} is ${rec.status} after the drain${parents === '' ? '' : ` (parents: ${parents})`}; history ${story}`,
      );
    }
    // 2. One terminal write per outcome.
    const terminal = history.filter((h) => TERMINAL_EVENTS.has(h.event)).length;
    const redrives = history.filter((h) => h.event === AuditEvent.REDRIVEN).length;
    if (terminal > 1 + redrives) {
      out.push(`terminal written ${terminal} times with ${redrives} redrive(s): ${line}; ${story}`);
    }
    // 4. Bounded retries.
    if (rec.attempt > FEATURE_MAX_ATTEMPTS)
      out.push(`attempt ${rec.attempt} > maxAttempts: ${line}`);
    // Only this task's starts: not those of an earlier task of the id (purged, rolled back).
    const starts = r.starts.filter((s) => s.id === task.id && s.order >= task.startsBefore);
    for (const s of starts) {
      if (s.attempt > FEATURE_MAX_ATTEMPTS) out.push(`started attempt ${s.attempt}: ${line}`);
    }
    const expected = m.expectedToken(task);
    const fate = expected === undefined ? undefined : task.fates.get(expected);
    if (fate === 'ok' && starts.length > 1 + task.crashes + task.redrives) {
      out.push(
        `ran ${starts.length} times with ${task.crashes} dead worker(s) and ${task.redrives} redrive(s): ${line}; ${story}`,
      );
    }
    // 6. Outcomes and payloads.
    for (const s of starts) {
      if (expected !== undefined && s.n !== expected && task.debounce !== undefined) {
        out.push(
          `debounce: ${line} ran payload #${s.n}, expected #${expected} (${task.debounce.mode}; accepted ${task.tokens.join(', ')})`,
        );
      }
    }
    if (fate === 'ok' && rec.status === TaskStatus.DEAD && task.crashes === 0) {
      out.push(
        `spent: ${line} should succeed and is DEAD (${rec.deadReason ?? ''} ${rec.lastError?.name ?? ''}: ${rec.lastError?.message ?? ''}); history ${story}`,
      );
    }
    if ((fate === 'fail' || fate === 'permanent') && rec.status === TaskStatus.SUCCEEDED) {
      out.push(`${line} should fail and SUCCEEDED`);
    }
    // 5. Dependencies.
    if (task.parents.length > 0) {
      for (const s of starts) {
        const early = Object.entries(s.parents).filter(([p, status]) => {
          // A parent gone at the start was purged (a purge deletes only DEAD tasks, so it had
          // finished, and had released its dependents, before), or never was (rolled back).
          const seen = status === 'ABSENT' && m.purged.has(p) ? TaskStatus.DEAD : status;
          return s.onParentDead === 'run' ? !finished(seen) : seen !== TaskStatus.SUCCEEDED;
        });
        if (early.length > 0) {
          out.push(
            `early: ${line} started while ${early.map(([p, st]) => `${short(p)} was ${st}`).join(', ')}`,
          );
        }
      }
      const released = history.filter((h) => h.event === AuditEvent.RELEASED).length;
      const waited = history[0]?.status === TaskStatus.WAITING;
      if (released > 1) out.push(`released ${released} times: ${line}; ${story}`);
      if (waited && starts.length > 0 && released !== 1) {
        out.push(`ran with ${released} release(s): ${line}; ${story}`);
      }
      const deadParent = task.parents.some((p) => {
        const st = records.get(p)?.status;
        return st === TaskStatus.DEAD || st === TaskStatus.CANCELLED;
      });
      if (task.onParentDead === 'cancel' && deadParent && finished(rec.status)) {
        if (rec.status !== TaskStatus.CANCELLED && starts.length === 0 && redrives === 0)
          out.push(`${line} has a dead parent and ended ${rec.status}, not CANCELLED`);
      }
    }
    // 7. Lifecycle events.
    const last = [...history].reverse().find((h) => TERMINAL_EVENTS.has(h.event));
    if (
      (rec.status === TaskStatus.SUCCEEDED || rec.status === TaskStatus.DEAD) &&
      last?.workerId?.startsWith('mw-') === true &&
      (r.events.accepted.get(task.id) ?? []).length === 0
    ) {
      out.push(`event: ${line} ended ${rec.status} and no lifecycle event of it was accepted`);
    }
  }
  // 3. Key order.
  const groups = new Map<string, ModelTask[]>();
  for (const task of live) {
    if (task.key === undefined) continue;
    const g = `${task.lane}/${task.key}`;
    groups.set(g, [...(groups.get(g) ?? []), task]);
  }
  const firstStart = (task: ModelTask) =>
    r.starts.find((s) => s.id === task.id && s.order >= task.startsBefore)?.order;
  for (const [group, tasks] of groups) {
    const sorted = [...tasks].sort((a, b) => a.created - b.created);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const a = sorted[i] as ModelTask;
        const b = sorted[j] as ModelTask;
        const sa = firstStart(a);
        const sb = firstStart(b);
        if (a.unsent || sb === undefined || sa === undefined) continue;
        if (sa > sb) {
          out.push(`order: in ${short(group)}, ${b.id} started before ${a.id}, enqueued earlier`);
        }
      }
    }
  }
  return out;
}

/** A parked DEAD task still holds its key: nothing released or redrove it since it died. */
function parkActive(rec: TaskRecord): boolean {
  let active = false;
  for (const h of rec.history) {
    if (h.event === AuditEvent.DEAD) active = true;
    if (h.event === AuditEvent.KEY_RELEASED || h.event === AuditEvent.REDRIVEN) active = false;
  }
  return active;
}

function short(id: string): string {
  return id.replace(/^r\w+-/, '').replace(/^default\//, '');
}
