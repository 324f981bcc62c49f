/**
 * Fork budgets: a fork costs the same at 100 and at 100k messages (ancestors are
 * shared, not copied), and an isolated fork of a 10k-file workspace is measured against `cp -r` and
 * `git worktree add` of the same tree, in the same run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BlobStore } from '../../src/blobs/index.js';
import { applyToolWrite, openCaptureContext } from '../../src/checkpoint/index.js';
import { pinTurnBoundary, SessionForker } from '../../src/fork/index.js';
import { SqliteStore, type Store } from '../../src/store/index.js';
import { timeMedian, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'fork';

/** A session of `turns` complete turns (input, tool call, tool output, reply carrying its execution state); the last boundary pinned. */
async function conversation(store: Store, turns: number) {
  const { id } = await store.createSession({ title: 'long' });
  await store.appendEntry(id, { type: 'model-choice', data: { model: 'large' } });
  let reply = '';
  let turnId = '';
  for (let turn = 0; turn < turns; turn++) {
    const { message } = await store.appendMessage({ sessionId: id, role: 'user', parts: [{ type: 'text', text: `question ${turn}` }] });
    const last = turn === turns - 1;
    if (last) turnId = (await store.createTurn({ sessionId: id, userMessageId: message.id })).id;
    await store.appendMessage({
      sessionId: id,
      role: 'assistant',
      parts: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'bash', input: { command: 'ls' } }],
    });
    await store.appendMessage({
      sessionId: id,
      role: 'tool',
      parts: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'bash', output: { type: 'text', value: 'o'.repeat(200) } }],
    });
    reply = (
      await store.appendMessage({
        sessionId: id,
        role: 'assistant',
        ...(last ? { turnId } : {}),
        parts: [{ type: 'text', text: `answer ${turn}` }],
        metadata: { executionState: { mode: 'auto' } },
      })
    ).message.id;
  }
  await pinTurnBoundary(store, turnId);
  await store.updateTurn(turnId, { status: 'complete', endedAt: Date.now() });
  return { sessionId: id, reply };
}

function generateWorkspace(dir: string, fileCount: number): string[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const paths: string[] = [];
  writeFileSync(join(dir, '.gitignore'), 'dist/\n');
  for (let index = 0; index < fileCount; index++) {
    const parts = Array.from({ length: 1 + Math.floor(random() * 4) }, (_, level) => `d${level}_${Math.floor(random() * 8)}`);
    const relative = `src/${parts.join('/')}/f${index}.ts`;
    mkdirSync(join(dir, relative, '..'), { recursive: true });
    const size = 1024 + Math.floor(random() * 19 * 1024);
    writeFileSync(join(dir, relative), Buffer.from(`// ${index}\n${'export const value = 1;\n'.repeat(Math.ceil(size / 24))}`.slice(0, size)), {
      mode: index % 20 === 0 ? 0o755 : 0o644,
    });
    paths.push(relative);
  }
  return paths;
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context) {
    const results: BenchResult[] = [];
    const store = await SqliteStore.open({ path: join(context.tempDir(), 'store', 'fork.db') });
    const forker = new SessionForker({ store });

    // 1. Fork cost against history length.
    const small = await conversation(store, 25);
    const large = await conversation(store, context.quick ? 2_500 : 25_000);
    const largeCount = (context.quick ? 2_500 : 25_000) * 4;
    for (const from of ['message', 'stable', 'side-chat'] as const) {
      const fork = (session: { sessionId: string; reply: string }) => () =>
        from === 'side-chat'
          ? forker.fork({ from, sessionId: session.sessionId })
          : forker.fork({ from, sessionId: session.sessionId, messageId: session.reply });
      const smallMs = await timeMedian(fork(small), 31, 5);
      const largeMs = await timeMedian(fork(large), 31, 5);
      const ratio = largeMs / smallMs;
      results.push({
        suite: SUITE,
        name: `${from} fork at ${largeCount} msgs`,
        value: largeMs,
        unit: 'ms',
        baseline: { name: 'at 100 msgs', value: smallMs },
        ratio,
        goal: '≤ 2',
        met: ratio <= 2,
      });
    }

    // 2. Isolated materialization of a generated workspace, against cp -r and git worktree add.
    const fileCount = context.quick ? 1_000 : 10_000;
    const base = context.tempDir();
    const ws = join(base, 'ws');
    mkdirSync(ws);
    const paths = generateWorkspace(ws, fileCount);
    const git = (...args: string[]) => execFileSync('git', ['-C', ws, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    git('init', '--quiet');
    git('add', '-A');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '-m', 'base');
    const blobs = new BlobStore(store);
    const session = await store.createSession({ title: 'workspace', workdir: ws });
    const turn = async (text: string, edit: boolean) => {
      const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text }] });
      const created = await store.createTurn({ sessionId: session.id, userMessageId: message.id });
      if (edit) {
        const capture = await openCaptureContext({ store, blobs, sessionId: session.id, turnId: created.id });
        for (const path of paths.slice(0, 5)) await applyToolWrite(capture, { path, content: `// edited after the fork point\n` });
      }
      const reply = (await store.appendMessage({ sessionId: session.id, role: 'assistant', turnId: created.id, parts: [{ type: 'text', text: 'ok' }] })).message
        .id;
      await store.updateTurn(created.id, { status: 'complete', endedAt: Date.now() });
      return reply;
    };
    const forkPoint = await turn('before', false);
    await turn('after: edit 5 files', true);
    let runIndex = 0;
    const target = () => join(base, `target-${runIndex++}`);
    const runs = context.quick ? 3 : 5;
    const isolated = (durable: boolean) => () =>
      forker.fork({ from: 'message', sessionId: session.id, messageId: forkPoint, workspace: { mode: 'isolated', dir: target(), durable } });
    const fastMs = await timeMedian(isolated(false), runs, 1);
    const durableMs = await timeMedian(isolated(true), runs, 1);
    const cpMs = await timeMedian(() => execFileSync('cp', ['-r', ws, target()]), runs, 1);
    const worktreeMs = await timeMedian(() => git('worktree', 'add', '--quiet', '--detach', target(), 'HEAD'), runs, 1);
    const label = `${fileCount} files`;
    results.push(
      {
        suite: SUITE,
        name: `isolated fork, ${label} (5 restored from blobs), no fsync`,
        value: fastMs,
        unit: 'ms',
        baseline: { name: 'cp -r', value: cpMs },
        ratio: fastMs / cpMs,
        note: 'scan (lstat + hash, ignore rules) + materialize; cp -r also copies .git',
      },
      {
        suite: SUITE,
        name: `isolated fork, ${label}, no fsync vs git worktree add`,
        value: fastMs,
        unit: 'ms',
        baseline: { name: 'git worktree add --detach', value: worktreeMs },
        ratio: fastMs / worktreeMs,
      },
      {
        suite: SUITE,
        name: `isolated fork, ${label}, fsync per file (default)`,
        value: durableMs,
        unit: 'ms',
        baseline: { name: 'cp -r', value: cpMs },
        ratio: durableMs / cpMs,
        note: 'neither cp nor git fsyncs',
      },
    );
    await store.close();
    return results;
  },
};

export default suite;
