/**
 * Restoring 5 files (budget: under 1 ms whatever the workspace size): a direct, journaled
 * file rewind of 5 checkpoints (`FileRewinder.cascade`: one journal, 5 atomic writes, the commit)
 * in generated workspaces of 10k and 50k files, against `git checkout <tree> -- <5 files>` on a
 * shadow git repository of the same workspace, measured in the same run. Reported with full
 * durability (every file and directory fsynced, the journal fully synced before any file changes)
 * and with file fsyncs off, next to the floors of this disk: the journal's sync alone, and the
 * durable file I/O alone (no Waypoint code: what any crash-safe restore of 5 files must do).
 *
 * The plan (the preview: everything before the journal) is also measured at a message that follows
 * 300 earlier turns that changed files, against the plan in the fresh session: a rewind reads the
 * checkpoints in its range, not the whole session's, so the two should stay close.
 *
 * The generated workspace is flushed to disk (`sync -f`, untimed) before measuring, and the agent's
 * 5 writes before each round are fsynced, as its tool writes are, for git and Waypoint alike: the
 * writeback of a just-generated 50k-file tree (or of 5 unsynced files) otherwise lands in whichever
 * fsync happens to run first.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fsync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BenchContext, BenchResult, BenchSuite } from '../harness.js';
import { BlobStore } from '../../src/blobs/index.js';
import { FileRewinder } from '../../src/rewind/files/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { fsyncDirectories } from '../../src/workspace/index.js';

const RUNS = 15;
/** Turns with file changes before the rewound one, in the long session. */
const EARLIER_TURNS = 300;

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

/** Flush everything written under `dir` to disk (syncfs), untimed. */
function flush(dir: string): void {
  execFileSync('sync', ['-f', dir], { stdio: 'ignore' });
}

function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
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
  const git = (...args: string[]) =>
    execFileSync('git', [`--git-dir=${join(root, 'shadow.git')}`, `--work-tree=${work}`, ...args], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  execFileSync('git', ['init', '--quiet', '--bare', join(root, 'shadow.git')]);
  git('add', '-A');
  const tree = git('write-tree');
  flush(work);

  // Waypoint: the agent's 5 edits recorded as checkpoints of one turn.
  const store = await SqliteStore.open({ path: join(root, 'store', 'w.db') });
  const blobs = new BlobStore(store);
  const session = await store.createSession({ workdir: work });
  const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'edit five files' }] });
  const turn = await store.createTurn({ sessionId: session.id, userMessageId: message.id });
  const checkpoints = [];
  const originals = new Map<string, Buffer>();
  for (const path of targets) {
    const before = readFileSync(join(work, path));
    originals.set(path, before);
    const beforeHash = await blobs.put(before);
    const afterHash = await blobs.put(Buffer.from(agentContent(path)));
    checkpoints.push({
      sessionId: session.id,
      turnId: turn.id,
      anchorMessageId: message.id,
      op: 'modify' as const,
      path: `workspace:${path}`,
      beforeHash,
      afterHash,
      beforeMode: 0o644,
      source: 'tool' as const,
    });
  }
  await store.addCheckpoints(checkpoints);

  // A second session in the same workspace whose 5-file turn follows 300 earlier turns that each
  // changed a file (its own 5 targets, so the two sessions' writes never meet).
  const longTargets = [0, 1, 2, 3, 4].map((index) => paths[Math.floor(((index + 0.25) * paths.length) / 5)]!);
  const longSession = await store.createSession({ workdir: work });
  const earlier = await blobs.put(Buffer.from('an earlier version\n'));
  const later = await blobs.put(Buffer.from('a later version\n'), { baseHash: earlier });
  for (let turnIndex = 0; turnIndex < EARLIER_TURNS; turnIndex++) {
    const { message: input } = await store.appendMessage({
      sessionId: longSession.id,
      role: 'user',
      parts: [{ type: 'text', text: `earlier turn ${turnIndex}` }],
    });
    const earlierTurn = await store.createTurn({ sessionId: longSession.id, userMessageId: input.id });
    await store.addCheckpoints([
      {
        sessionId: longSession.id,
        turnId: earlierTurn.id,
        anchorMessageId: input.id,
        op: 'modify',
        path: `workspace:notes/n${turnIndex % 50}.md`,
        beforeHash: earlier,
        afterHash: later,
        beforeMode: 0o644,
        source: 'tool',
      },
    ]);
  }
  const { message: longMessage } = await store.appendMessage({ sessionId: longSession.id, role: 'user', parts: [{ type: 'text', text: 'edit five files' }] });
  const longTurn = await store.createTurn({ sessionId: longSession.id, userMessageId: longMessage.id });
  const longCheckpoints = [];
  for (const path of longTargets) {
    const beforeHash = await blobs.put(readFileSync(join(work, path)));
    const afterHash = await blobs.put(Buffer.from(agentContent(path)));
    longCheckpoints.push({
      sessionId: longSession.id,
      turnId: longTurn.id,
      anchorMessageId: longMessage.id,
      op: 'modify' as const,
      path: `workspace:${path}`,
      beforeHash,
      afterHash,
      beforeMode: 0o644,
      source: 'tool' as const,
    });
  }
  await store.addCheckpoints(longCheckpoints);

  // The agent's 5 writes, durable as its tool writes are (each file fsynced), untimed.
  const applyAgent = (files = targets) => {
    for (const path of files) {
      const fd = openSync(join(work, path), 'w');
      writeSync(fd, agentContent(path));
      fsyncSync(fd);
      closeSync(fd);
    }
  };

  const results: BenchResult[] = [];
  const label = `${fileCount / 1000}k files`;
  // Every measure takes one sample per round, in turn, so a change in machine load (the box is
  // shared) hits them all alike; the first two rounds warm up.
  const samples = {
    git: [] as number[],
    plan: [] as number[],
    longPlan: [] as number[],
    journal: [] as number[],
    io: [] as number[],
    durable: [] as number[],
    fast: [] as number[],
  };
  const time = async (into: number[], run: number, fn: () => unknown): Promise<void> => {
    const start = process.hrtime.bigint();
    await fn();
    if (run >= 2) into.push(Number(process.hrtime.bigint() - start) / 1e6);
  };
  const durableRewinder = new FileRewinder({ store, blobs });
  const fastRewinder = new FileRewinder({ store, blobs, durable: false });
  const restore = async (rewinder: FileRewinder, into: number[], run: number): Promise<void> => {
    applyAgent();
    let result: Awaited<ReturnType<FileRewinder['cascade']>> | null = null;
    await time(into, run, async () => (result = await rewinder.cascade(session.id, message.id)));
    if (result!.files.length !== 5 || targets.some((path) => readFileSync(join(work, path), 'utf8') === agentContent(path)))
      throw new Error('the 5 files were not restored');
    // Untimed: make the checkpoints rewindable again (the ledger records the rewind).
    await rewinder.redo(session.id, result!.rewindId!);
  };
  for (let run = 0; run < RUNS + 2; run++) {
    applyAgent();
    await time(samples.git, run, () => git('checkout', tree, '--', ...targets));

    // What the rewind costs before touching any file: selection, ledger, reading 5 files and 5 snapshots, simulation.
    applyAgent();
    await time(samples.plan, run, async () => {
      const preview = await durableRewinder.preview({ sessionId: session.id, messageId: message.id });
      if (!preview.canApply) throw new Error(preview.blockers.join('; '));
    });

    // The same plan at a message that follows 300 earlier turns with file changes, in the same
    // conditions as the one above: after a child process and the agent's fsynced writes.
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    applyAgent(longTargets);
    await time(samples.longPlan, run, async () => {
      const preview = await durableRewinder.preview({ sessionId: longSession.id, messageId: longMessage.id });
      if (!preview.canApply || preview.checkpointIds.length !== 5) throw new Error(preview.blockers.join('; ') || 'not the 5 changes');
    });

    // The journal's own floor: recorded, one full sync, finished (as the apply does it).
    await time(samples.journal, run, async () => {
      const journal = await store.createJournal({ kind: 'bench', root: work, items: [] }, { durable: false });
      await store.syncJournal(journal.id);
      await store.setJournalState(journal.id, 'rolled_back', {}, { durable: false });
    });

    // The disk's floor for any crash-safe restore of these 5 files, no Waypoint code: the journal
    // synced while 5 temp files are fsynced in the thread pool, 5 renames over the agent's files,
    // the 5 directories fsynced together, the final commit. Two ordered rounds of device flushes.
    applyAgent();
    await time(samples.io, run, async () => {
      const journal = await store.createJournal({ kind: 'bench', root: work, items: [] }, { durable: false });
      const temps = targets.map((path) => {
        const temp = join(work, `${path}.bench-tmp`);
        const fd = openSync(temp, 'wx', 0o644);
        writeSync(fd, originals.get(path)!);
        return { fd, temp, path };
      });
      const synced = Promise.all(temps.map((temp) => fsyncAsync(temp.fd)));
      await store.syncJournal(journal.id);
      await synced;
      for (const temp of temps) {
        closeSync(temp.fd);
        renameSync(temp.temp, join(work, temp.path));
      }
      await fsyncDirectories(targets.map((path) => dirname(join(work, path))));
      await store.setJournalState(journal.id, 'rolled_back', {}, { durable: false });
    });

    await restore(durableRewinder, samples.durable, run);
    await restore(fastRewinder, samples.fast, run);
  }
  const gitMs = median(samples.git);
  results.push({ suite: 'rewind-restore', name: `git checkout <tree> -- 5 files, ${label}`, value: gitMs, unit: 'ms', note: 'includes spawning git' });
  const planMs = median(samples.plan);
  results.push({ suite: 'rewind-restore', name: `plan only (preview, no writes), ${label}`, value: planMs, unit: 'ms' });
  const longPlanMs = median(samples.longPlan);
  results.push({
    suite: 'rewind-restore',
    name: `plan only, after ${EARLIER_TURNS} earlier turns with file changes, ${label}`,
    value: longPlanMs,
    unit: 'ms',
    baseline: { name: 'plan in a fresh session', value: planMs },
    ratio: longPlanMs / planMs,
    note: "the checkpoints in range are read, not the whole session's",
  });
  results.push({ suite: 'rewind-restore', name: `floor: journal record + full sync + finish, ${label}`, value: median(samples.journal), unit: 'ms' });
  const floor = median(samples.io);
  results.push({
    suite: 'rewind-restore',
    name: `floor: durable I/O alone (journal sync ∥ 5 fsyncs, renames, dir fsyncs), ${label}`,
    value: floor,
    unit: 'ms',
    note: 'no Waypoint code: the least any journaled, crash-safe restore of 5 files costs on this disk',
  });
  for (const durable of [true, false]) {
    const value = median(durable ? samples.durable : samples.fast);
    results.push({
      suite: 'rewind-restore',
      name: `restore 5 files${durable ? '' : ' (file fsyncs off)'}, ${label}`,
      value,
      unit: 'ms',
      baseline: { name: 'git checkout', value: gitMs },
      ratio: value / gitMs,
      goal: '< 1 ms',
      met: value < 1,
      note: durable
        ? `journal fully synced before any file changes, every file and directory fsynced before the commit; ${(value / floor).toFixed(2)}× the durable I/O floor`
        : 'the journal still fully synced',
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
