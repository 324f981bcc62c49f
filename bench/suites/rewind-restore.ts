/**
 * Restoring 5 files (DESIGN.md budget: under 1 ms whatever the workspace size): a direct, journaled
 * file rewind of 5 checkpoints (`FileRewinder.cascade`: one journal, 5 atomic writes, the commit)
 * in generated workspaces of 10k and 50k files, against `git checkout <tree> -- <5 files>` on a
 * shadow git repository of the same workspace, measured in the same run. Reported with full
 * durability (fsync of every file, directory and both journal commits) and with file fsyncs off.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext, BenchResult, BenchSuite } from '../harness.js';
import { BlobStore } from '../../src/blobs/index.js';
import { FileRewinder } from '../../src/rewind/files/index.js';
import { SqliteStore } from '../../src/store/index.js';

const RUNS = 15;

function generate(dir: string, count: number): string[] {
  const paths: string[] = [];
  for (let index = 0; index < count; index++) {
    const relative = `src/d${index % 37}/e${index % 11}/f${index}.ts`;
    if (index < 37 * 11) mkdirSync(join(dir, relative, '..'), { recursive: true });
    writeFileSync(join(dir, relative), `export const value${index} = ${index};\n`.repeat(20 + (index % 60)));
    paths.push(relative);
  }
  return paths;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(context: BenchContext, fileCount: number): Promise<BenchResult[]> {
  const root = context.tempDir('waypoint-bench-rewind-');
  const work = join(root, 'work');
  mkdirSync(work);
  const paths = generate(work, fileCount);
  const targets = [0, 1, 2, 3, 4].map((index) => paths[Math.floor(((index + 0.5) * paths.length) / 5)]!);
  const agentContent = (path: string) => `// rewritten by the agent\n${path}\n`;

  // Shadow git: snapshot the workspace before the agent's change, as Cline / Gemini CLI / OpenCode do.
  const git = (...args: string[]) => execFileSync('git', [`--git-dir=${join(root, 'shadow.git')}`, `--work-tree=${work}`, ...args], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  execFileSync('git', ['init', '--quiet', '--bare', join(root, 'shadow.git')]);
  git('add', '-A');
  const tree = git('write-tree');

  // Waypoint: the agent's 5 edits recorded as checkpoints of one turn.
  const store = await SqliteStore.open({ path: join(root, 'store', 'w.db') });
  const blobs = new BlobStore(store);
  const session = await store.createSession({ workdir: work });
  const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'edit five files' }] });
  const turn = await store.createTurn({ sessionId: session.id, userMessageId: message.id });
  const { readFileSync } = await import('node:fs');
  const checkpoints = [];
  for (const path of targets) {
    const before = readFileSync(join(work, path));
    const beforeHash = await blobs.put(before);
    const afterHash = await blobs.put(Buffer.from(agentContent(path)));
    checkpoints.push({ sessionId: session.id, turnId: turn.id, anchorMessageId: message.id, op: 'modify' as const, path: `workspace:${path}`, beforeHash, afterHash, beforeMode: 0o644, source: 'tool' as const });
  }
  await store.addCheckpoints(checkpoints);
  const applyAgent = () => {
    for (const path of targets) writeFileSync(join(work, path), agentContent(path));
  };

  const results: BenchResult[] = [];
  const label = `${fileCount / 1000}k files`;
  let gitMs = 0;
  {
    const samples: number[] = [];
    for (let run = 0; run < RUNS + 2; run++) {
      applyAgent();
      const start = process.hrtime.bigint();
      git('checkout', tree, '--', ...targets);
      if (run >= 2) samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    gitMs = median(samples);
    results.push({ suite: 'rewind-restore', name: `git checkout <tree> -- 5 files, ${label}`, value: gitMs, unit: 'ms', note: 'includes spawning git' });
  }
  {
    // What the rewind costs before touching any file: selection, ledger, reading 5 files and 5 snapshots, simulation.
    const rewinder = new FileRewinder({ store, blobs });
    applyAgent();
    const samples: number[] = [];
    for (let run = 0; run < RUNS + 2; run++) {
      const start = process.hrtime.bigint();
      const preview = await rewinder.preview({ sessionId: session.id, messageId: message.id });
      if (run >= 2) samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (!preview.canApply) throw new Error(preview.blockers.join('; '));
    }
    results.push({ suite: 'rewind-restore', name: `plan only (preview, no writes), ${label}`, value: median(samples), unit: 'ms' });
    // The durability floor: two journal commits with synchronous=FULL, nothing else.
    const journalSamples: number[] = [];
    for (let run = 0; run < RUNS + 2; run++) {
      const start = process.hrtime.bigint();
      const journal = await store.createJournal({ kind: 'bench', root: work, items: [] });
      await store.setJournalState(journal.id, 'rolled_back');
      if (run >= 2) journalSamples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    results.push({ suite: 'rewind-restore', name: `floor: journal create + finish (2 full syncs), ${label}`, value: median(journalSamples), unit: 'ms' });
  }
  for (const durable of [true, false]) {
    const rewinder = new FileRewinder({ store, blobs, durable });
    const samples: number[] = [];
    for (let run = 0; run < RUNS + 2; run++) {
      applyAgent();
      const start = process.hrtime.bigint();
      const result = await rewinder.cascade(session.id, message.id);
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      if (run >= 2) samples.push(elapsed);
      if (result.files.length !== 5 || targets.some((path) => readFileSync(join(work, path), 'utf8') === agentContent(path))) throw new Error('the 5 files were not restored');
      // Untimed: make the checkpoints rewindable again (the ledger records the rewind).
      await rewinder.redo(session.id, result.rewindId!);
    }
    const value = median(samples);
    results.push({
      suite: 'rewind-restore',
      name: `restore 5 files${durable ? '' : ' (file fsyncs off)'}, ${label}`,
      value,
      unit: 'ms',
      baseline: { name: 'git checkout', value: gitMs },
      ratio: value / gitMs,
      goal: '< 1 ms',
      met: value < 1,
      note: durable ? 'journal + entry committed with synchronous=FULL, every file and directory fsynced' : 'journal commits still fully synced',
    });
  }
  await store.close();
  return results;
}

const suite: BenchSuite = {
  name: 'rewind-restore',
  async run(context) {
    const sizes = context.quick ? [2_000, 10_000] : [10_000, 50_000];
    const results: BenchResult[] = [];
    for (const size of sizes) results.push(...(await measure(context, size)));
    return results;
  },
};

export default suite;
