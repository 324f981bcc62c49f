import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashContent } from '../../src/model/index.js';
import type { RuntimeEvents } from '../../src/runtime/index.js';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';
import { waitUntil } from './waits.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/**
 * `count` text files of about `size` bytes, compressible, in a few directories, dated a minute ago
 * (older than the stat cache's racy window, as a real workspace's files are); returns their contents by name.
 */
function fillWorkspace(workdir: string, count: number, size: number): Map<string, string> {
  const files = new Map<string, string>();
  const past = new Date(Date.now() - 60_000);
  for (let index = 0; index < count; index++) {
    const dir = join(workdir, `dir${index % 10}`);
    mkdirSync(dir, { recursive: true });
    const line = `file ${index}: the quick brown fox jumps over the lazy dog\n`;
    const content = line.repeat(Math.max(1, Math.ceil(size / line.length)));
    writeFileSync(join(dir, `f${index}.txt`), content);
    utimesSync(join(dir, `f${index}.txt`), past, past);
    files.set(`dir${index % 10}/f${index}.txt`, content);
  }
  return files;
}

function eventsNamed<Name extends keyof RuntimeEvents>(fixture: RuntimeFixture, name: Name): Array<RuntimeEvents[Name]> {
  return fixture.events.filter((event) => event.name === name).map((event) => event.event as RuntimeEvents[Name]);
}

describe('scan progress', () => {
  it('reports a long first scan of the workspace (store, done), from the bash call that scans', async () => {
    fixture = await runtimeFixture([{ toolCalls: [{ toolName: 'bash', input: { command: 'echo hi > new.txt' } }] }, { text: 'Done.' }], {
      idleCompression: false,
    });
    const { runtime, workdir } = fixture;
    fillWorkspace(workdir, 1200, 200);
    const session = await runtime.startSession({ workdir });
    const result = await runtime.runTurn(session.id, 'Scan it');
    const progress = eventsNamed(fixture, 'scan-progress');
    for (const event of progress) expect(event).toMatchObject({ sessionId: session.id, turnId: result.turn.id, toolCallId: 'scripted_1_1', taskId: null });
    const before = progress.filter((event) => event.scan === 'before');
    // The first scan read every file: many enough to report storing them, then done.
    expect(before.map((event) => event.phase).filter((phase) => phase !== 'read')).toEqual(['store', 'done']);
    expect(before.at(-1)).toMatchObject({ phase: 'done', filesRead: 1200, files: 1200 });
    expect(before.at(-1)!.bytesRead).toBeGreaterThanOrEqual(1200 * 200);
    for (const event of before.filter((item) => item.phase === 'read')) expect(event.files).toBeNull();
    // Events per scan come in order: read… store done.
    for (const scan of ['before', 'after'] as const) {
      const phases = progress
        .filter((event) => event.scan === scan)
        .map((event) => event.phase)
        .join(' ');
      expect(phases).toMatch(/^(read )*(store done)?$|^$/);
    }
  });

  it('reports the scan a background command starts with, with its task id', async () => {
    fixture = await runtimeFixture([{ toolCalls: [{ toolName: 'bash', input: { command: 'echo bg > bg.txt', background: true } }] }, { text: 'Started.' }], {
      idleCompression: false,
    });
    const { runtime, workdir } = fixture;
    fillWorkspace(workdir, 1100, 100);
    const session = await runtime.startSession({ workdir });
    await runtime.runTurn(session.id, 'Start it');
    await runtime.settleBackground();
    const [start] = eventsNamed(fixture, 'task-start');
    const first = eventsNamed(fixture, 'scan-progress').filter((event) => event.scan === 'before');
    expect(first.at(-1)).toMatchObject({ phase: 'done', taskId: start!.taskId, toolCallId: 'scripted_1_1', filesRead: 1100 });
    expect(eventsNamed(fixture, 'task-end')[0]!.checkpointIds).toHaveLength(1);
    // The start scan was saved as the session's scan state: the scan when the task ended read only what changed.
    expect(eventsNamed(fixture, 'scan-progress').filter((event) => event.scan === 'after' && event.filesRead >= 1000)).toEqual([]);
  });
});

describe('compression at idle', () => {
  it('compresses the blobs a first scan stored raw, after the turn ended', async () => {
    fixture = await runtimeFixture([{ toolCalls: [{ toolName: 'bash', input: { command: 'echo hi > new.txt' } }] }, { text: 'Done.' }]);
    const { runtime, waypoint, workdir } = fixture;
    const files = fillWorkspace(workdir, 60, 20_000);
    const session = await runtime.startSession({ workdir });
    let backlogAtTurnEnd: Promise<{ blobs: number; bytes: number }> | null = null;
    runtime.events.on('turn-end', () => {
      backlogAtTurnEnd = waypoint.blobs.compressionBacklog();
    });
    await runtime.runTurn(session.id, 'Scan it');
    // Staged raw by the first scan; compressed off the turn's path, after turn-end.
    expect((await backlogAtTurnEnd!).blobs).toBeGreaterThanOrEqual(60);
    await runtime.settleIdle();
    expect(await waypoint.blobs.compressionBacklog()).toEqual({ blobs: 0, bytes: 0 });
    const names = fixture.events.map((event) => event.name);
    expect(names.indexOf('blobs-compress')).toBeGreaterThan(names.indexOf('turn-end'));
    const [report] = eventsNamed(fixture, 'blobs-compress');
    expect(report).toMatchObject({ sessionId: session.id, pendingBlobs: 0, error: null });
    expect(report!.blobsMoved).toBeGreaterThanOrEqual(60);
    expect(report!.bytesOut).toBeLessThan(report!.bytesIn / 4);
    const content = files.get('dir3/f3.txt')!;
    const hash = hashContent(Buffer.from(content));
    expect((await waypoint.blobs.stat(hash)).encoding).toBe('deflate');
    expect((await waypoint.blobs.get(hash)).toString('utf8')).toBe(content);
  });

  it('leaves staged blobs alone when turned off', async () => {
    fixture = await runtimeFixture([{ toolCalls: [{ toolName: 'bash', input: { command: 'true' } }] }, { text: 'Done.' }], { idleCompression: false });
    const { runtime, waypoint, workdir } = fixture;
    fillWorkspace(workdir, 20, 20_000);
    const session = await runtime.startSession({ workdir });
    await runtime.runTurn(session.id, 'Scan it');
    await runtime.settleIdle();
    expect((await waypoint.blobs.compressionBacklog()).blobs).toBeGreaterThanOrEqual(20);
    expect(eventsNamed(fixture, 'blobs-compress')).toEqual([]);
  });

  it('breaks nothing when the next turn starts while a pass runs', async () => {
    fixture = await runtimeFixture(
      [
        { toolCalls: [{ toolName: 'bash', input: { command: 'echo one > one.txt' } }] },
        { text: 'One.' },
        { toolCalls: [{ toolName: 'write', input: { path: 'dir1/f1.txt', content: 'rewritten\n' } }] },
        { toolCalls: [{ toolName: 'bash', input: { command: 'echo two >> one.txt; rm dir2/f2.txt' } }] },
        { text: 'Two.' },
      ],
      { idleCompression: { budgetMs: 1, maxBytes: 1 } },
    );
    const { runtime, waypoint, workdir } = fixture;
    const files = fillWorkspace(workdir, 400, 40_000);
    const session = await runtime.startSession({ workdir });
    // The second turn starts as the first idle pass begins, so they run side by side.
    const compress = waypoint.blobs.compress.bind(waypoint.blobs);
    let second: Promise<unknown> | null = null;
    waypoint.blobs.compress = (options) => {
      second ??= runtime.runTurn(session.id, 'Two');
      return compress(options);
    };
    const first = await runtime.runTurn(session.id, 'One');
    await waitUntil(() => second !== null, 'the idle pass to start');
    await second;
    await runtime.settleIdle();
    expect(fixture.events.filter((event) => event.name === 'turn-end')).toHaveLength(2);
    expect(await waypoint.blobs.compressionBacklog()).toEqual({ blobs: 0, bytes: 0 });
    expect(eventsNamed(fixture, 'blobs-compress').every((event) => event.error === null)).toBe(true);
    // Every content the checkpoints name reads back verified, and the files rewind.
    for (const checkpoint of await waypoint.store.listCheckpoints(session.id)) {
      for (const hash of [checkpoint.beforeHash, checkpoint.afterHash]) if (hash) await waypoint.blobs.get(hash);
    }
    const input = (await waypoint.store.getTurn(first.turn.id)).userMessageId;
    await runtime.rewind({ sessionId: session.id, messageId: input, scope: 'both', cascade: true });
    expect(readFileSync(join(workdir, 'dir1/f1.txt'), 'utf8')).toBe(files.get('dir1/f1.txt'));
    expect(readFileSync(join(workdir, 'dir2/f2.txt'), 'utf8')).toBe(files.get('dir2/f2.txt'));
  });
});
