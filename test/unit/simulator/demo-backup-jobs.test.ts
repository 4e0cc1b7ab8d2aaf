import { readFileSync } from 'node:fs';

/**
 * The demo's backup jobs can run (Run in the console, the scheduler under npm start): each names a target on
 * another member node, its source dataset exists on the runner's simulated host, and the target dataset's
 * parent exists on the target's host while the dataset itself does not yet (zfs recv creates it there).
 */
interface Demo {
  nodes: Array<{ id: string; name: string; status?: string }>;
  hosts: Record<string, { datasets?: Array<{ name: string }> }>;
  backupJobs: Array<{ name: string; nodeId: string; sourceDataset: string; target?: { nodeId?: string; dataset: string } }>;
}
const demo = JSON.parse(readFileSync('shared/seed/demo.json', 'utf8')) as Demo;
const datasets = (node: string) => new Set((demo.hosts[node]?.datasets ?? []).map((d) => d.name));
const member = (id: string | undefined) => demo.nodes.some((n) => n.id === id && (n.status ?? 'member') === 'member');

test.each(demo.backupJobs.map((j) => [j.name, j] as const))('demo job %s: a target on another member, a source that exists', (_name, job) => {
  expect(job.target?.nodeId).toBeDefined();
  const target = job.target!;
  expect(target.nodeId).not.toBe(job.nodeId);
  expect(member(target.nodeId)).toBe(true);
  expect(datasets(job.nodeId).has(job.sourceDataset)).toBe(true);
  const there = datasets(target.nodeId!);
  expect(there.has(target.dataset.slice(0, target.dataset.lastIndexOf('/')))).toBe(true);
  expect(there.has(target.dataset)).toBe(false);
});

test('demo: no two jobs receive into the same target dataset', () => {
  const targets = demo.backupJobs.map((j) => `${j.target?.nodeId}:${j.target?.dataset}`);
  expect(new Set(targets).size).toBe(targets.length);
});
