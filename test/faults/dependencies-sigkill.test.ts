/**
 * (t) Dependencies under SIGKILL. Three worker processes run a DAG of tasks while the suite
 * SIGKILLs a random one every 0.8-2.5 s and restarts it: in each of ten groups, a root fans
 * out to six children, which fan in (`enqueueFanIn(children, { then })`) to a join, followed
 * by a chain of three, the last with two parents, and a task joining the group with the
 * previous one. The producer enqueues group after group while the workers run, so some
 * parents have finished by the time their dependents are enqueued. A kill between a parent's
 * terminal write and its release leaves the release to the sweeper (docs/dependencies.md).
 * Judged: 0 tasks lost, 0 released twice, 0 runs of a task before all its parents succeeded.
 */
import { describe, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import type { TaskRecord } from '../../src/core/record.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { sleep } from './lib/random.js';
import { readRecords } from './lib/records.js';
import { range } from './lib/run.js';
import { allSucceed, checkCommon, checkDuplicatesExplained, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const GROUPS = 10;
const FAN_OUT = 6;
const WORKERS = 3;
const PROFILE: TaskProfile = { timeoutMs: 2000, maxAttempts: 8, baseDelayMs: 100, maxDelayMs: 500 };
const SETTINGS = {
  leaseGraceMs: 500,
  leaseDurationMs: 3000,
  concurrency: 2,
  batchSize: 10,
  waitTimeSeconds: 1,
};

/** One task of the DAG and the tasks it waits for. */
interface Node {
  readonly id: string;
  readonly parents: readonly string[];
}

/** The DAG of group `g`, parents before their dependents. */
function group(g: number): { root: Node; children: Node[]; join: Node; rest: Node[] } {
  const id = (name: string) => `t-${g}-${name}`;
  const root = { id: id('root'), parents: [] };
  const children = range(FAN_OUT).map((j) => ({ id: id(`c${j}`), parents: [root.id] }));
  const join = { id: id('join'), parents: children.map((c) => c.id) };
  const rest = [
    { id: id('k1'), parents: [join.id] },
    { id: id('k2'), parents: [id('k1')] },
    { id: id('k3'), parents: [id('k2'), root.id] },
    ...(g === 0 ? [] : [{ id: id('x'), parents: [id('k3'), `t-${g - 1}-join`] }]),
  ];
  return { root, children, join, rest };
}

describe('dependencies under SIGKILL', () => {
  it('releases every dependent once, after all its parents succeeded, through worker kills', async () => {
    // Arrange
    const s = await Scenario.open({
      id: 't',
      title: '(t) Dependencies under SIGKILL',
      description: `${WORKERS} worker processes run a DAG of ${GROUPS} groups, each a root fanning out to ${FAN_OUT} children that fan in to a join (enqueueBatch with then), a chain of three after it (the last with two parents) and a task joining the group to the previous one, while a random worker is SIGKILLed every 0.8-2.5 s and restarted, all run long. The producer enqueues group after group as the workers run. Judged from the records and the handlers' own start times: every task SUCCEEDED once, every dependent released once, and no run before all of its parents succeeded.`,
      workerTimeoutSeconds: 1,
      maxAttempts: PROFILE.maxAttempts,
    });
    const fleet = s.fleet(PROFILE, SETTINGS);
    fleet.start(WORKERS);
    const sweeper = startSweeperLoop(s.executor, {
      intervalMs: 2000,
      pendingAgeMs: 3000,
      releaseGraceMs: 2000,
    });
    const client = s.client();
    const task = s.producerTask(PROFILE);
    let seq = 0;
    const payload = () => ({ seq: seq++, mode: WorkMode.OK, runMs: s.rng.int(50, 400) });
    const killer = s.rng.fork('kills');
    let killing = true;
    let kills = 0;
    const killLoop = (async () => {
      while (killing) {
        await sleep(killer.int(800, 2500));
        if (!killing) break;
        fleet.kill(killer.int(0, WORKERS - 1));
        kills += 1;
      }
    })();

    // Act: group after group, each parent enqueued before its dependents.
    const nodes: Node[] = [];
    for (const g of range(GROUPS)) {
      const { root, children, join, rest } = group(g);
      await client.enqueue(task, payload(), { id: root.id });
      const batch = await client.enqueueFanIn(
        children.map((c) => ({
          task,
          payload: payload(),
          options: { id: c.id, dependsOn: c.parents },
        })),
        // biome-ignore lint/suspicious/noThenProperty: `then` is enqueueFanIn's option, no promise.
        { then: { task, payload: payload(), options: { id: join.id } } },
      );
      if (batch.fanIn?.id !== join.id) throw new Error(`group ${g}: fan-in not enqueued`);
      for (const node of rest) {
        await client.enqueue(task, payload(), { id: node.id, dependsOn: node.parents });
      }
      nodes.push(root, ...children, join, ...rest);
      await sleep(s.rng.int(200, 1200));
    }
    const ids = nodes.map((n) => n.id);
    await s.quiesce(ids, 240_000);
    killing = false;
    await killLoop;
    await sweeper.stop();
    await fleet.stopAll();

    // Assert
    const { figures } = await s.classify(allSucceed(ids));
    const records = await readRecords(s.executor, ids);
    s.note('SIGKILLs', kills);
    s.note('worker restarts', fleet.restarts);
    s.note('sweeper requeues', sweeper.stats.requeued);
    s.note('dependents released by the sweeper', sweeper.stats.released);
    checkCommon(s, figures);
    checkDuplicatesExplained(s, figures);
    s.check(
      'outcomes',
      `every one of the ${ids.length} tasks SUCCEEDED`,
      figures.unexpected === 0 && figures.tasks === ids.length,
      `${figures.unexpected} unexpected of ${figures.tasks}`,
    );
    const dependents = nodes.filter((n) => n.parents.length > 0);
    const createdWaiting = (r: TaskRecord | undefined) =>
      r?.history[0]?.status === TaskStatus.WAITING;
    const releases = (r: TaskRecord | undefined) =>
      r?.history.filter((h) => h.event === AuditEvent.RELEASED).length ?? 0;
    const wrongReleases = dependents.filter((n) => {
      const r = records.get(n.id);
      return releases(r) !== (createdWaiting(r) ? 1 : 0);
    });
    s.note(
      'dependents created WAITING',
      dependents.filter((n) => createdWaiting(records.get(n.id))).length,
    );
    s.check(
      'released-once',
      `each of the ${dependents.length} dependents created WAITING was released exactly once (the others, whose parents had all finished, were created PENDING)`,
      wrongReleases.length === 0,
      `${wrongReleases.length} released not once${wrongReleases.length > 0 ? `: ${wrongReleases.map((n) => n.id).join(' ')}` : ''}`,
    );
    const early = dependents.filter((n) => {
      const parentsDone = n.parents.map((p) => records.get(p));
      const allSucceeded = parentsDone.every((p) => p?.status === TaskStatus.SUCCEEDED);
      const lastFinish = Math.max(...parentsDone.map((p) => p?.finishedAt ?? Infinity));
      const runs = s.calls.entries.filter((e) => e.taskId === n.id);
      return !allSucceeded || runs.some((e) => e.at < lastFinish);
    });
    s.check(
      'after-parents',
      'no run of a dependent started before the terminal write of its last parent',
      early.length === 0,
      `${early.length} early${early.length > 0 ? `: ${early.map((n) => n.id).join(' ')}` : ''}`,
    );
    await s.finish();
  });
});
