import { existsSync, lstatSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import type { MessageWithParts } from '../../src/model/index.js';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';

/**
 * The default layout for a chat started in the home directory: the store at
 * `<home>/.waypoint/waypoint.db`, the session's workspace `<home>` itself; `<home>/project` is a
 * workspace that does not hold the store.
 */
function homeFixture(steps: unknown[]): Promise<RuntimeFixture> {
  return runtimeFixture(steps, {}, { store: '.waypoint/waypoint.db' });
}

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  delete process.env.WAYPOINT_UNSHARE;
  await fixture?.close();
  fixture = null;
});

function toolOutputs(messages: readonly MessageWithParts[]): Array<{ type: string; value: string }> {
  return messages.filter((message) => message.role === 'tool').map((message) => message.parts[0]!.content!.output as { type: string; value: string });
}

/** Every session and every checkpoint content is readable through a fresh connection (another process would see the same). */
async function expectStoreIntact(fixture: RuntimeFixture, sessionId: string): Promise<void> {
  expect(readFileSync(fixture.storePath).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
  const reopened = await openWaypoint({ path: fixture.storePath });
  try {
    expect((await reopened.store.listSessions()).map((session) => session.id)).toContain(sessionId);
    expect((await reopened.store.history(sessionId)).length).toBeGreaterThan(0);
    for (const checkpoint of await reopened.store.listCheckpoints(sessionId)) {
      if (checkpoint.afterHash) await reopened.blobs.get(checkpoint.afterHash);
      if (checkpoint.beforeHash) await reopened.blobs.get(checkpoint.beforeHash);
      // The store's own files are never recorded as workspace changes.
      expect(checkpoint.path).not.toMatch(/^workspace:\.waypoint(\/|$)/);
    }
  } finally {
    await reopened.close();
  }
}

describe('the store inside the workspace', () => {
  it('refuses every tool write into the store, through links and `..` too, with PATH_PROTECTED, and later turns work', async () => {
    fixture = await homeFixture([
      {
        toolCalls: [
          { toolName: 'write', input: { path: '.waypoint/waypoint.db', content: 'x' } },
          { toolName: 'edit', input: { path: '.waypoint/waypoint.db', oldString: 'SQLite', newString: 'x' } },
          { toolName: 'write', input: { path: '.waypoint/waypoint.db-wal', content: 'x' } },
          { toolName: 'write', input: { path: '.waypoint/waypoint.db.blobs/evil.pack', content: 'x' } },
          { toolName: 'write', input: { path: '.waypoint/notes.txt', content: 'x' } },
          { toolName: 'write', input: { path: 'link/waypoint.db', content: 'x' } },
          { toolName: 'write', input: { path: 'dblink', content: 'x' } },
          { toolName: 'write', input: { path: 'project/../.waypoint/waypoint.db', content: 'x' } },
          { toolName: 'write', input: { path: '.waypoint/../.waypoint/waypoint.db-shm', content: 'x' } },
        ],
      },
      { text: 'Tried.' },
      { toolCalls: [{ toolName: 'write', input: { path: 'ok.txt', content: 'fine\n' } }] },
      { text: 'Wrote it.' },
    ]);
    const { dir, runtime, waypoint, storePath } = fixture;
    symlinkSync(join(dir, '.waypoint'), join(dir, 'link'));
    symlinkSync(storePath, join(dir, 'dblink'));
    const session = await runtime.startSession({ workdir: dir });
    const inode = lstatSync(storePath).ino;

    const first = await runtime.runTurn(session.id, 'Overwrite the store');
    expect(first.status).toBe('complete');
    const outputs = toolOutputs(await waypoint.store.history(session.id));
    expect(outputs).toHaveLength(9);
    for (const output of outputs) {
      expect(output.type).toBe('error-text');
      expect(output.value).toContain('(PATH_PROTECTED)');
    }
    expect(existsSync(join(dir, '.waypoint', 'notes.txt'))).toBe(false);
    expect(existsSync(join(dir, '.waypoint', 'waypoint.db.blobs', 'evil.pack'))).toBe(false);
    expect(lstatSync(storePath).ino).toBe(inode);
    expect(await waypoint.store.listCheckpoints(session.id)).toEqual([]);

    const second = await runtime.runTurn(session.id, 'Now a real file');
    expect(second.status).toBe('complete');
    expect(readFileSync(join(dir, 'ok.txt'), 'utf8')).toBe('fine\n');
    expect((await waypoint.store.listCheckpoints(session.id)).map((checkpoint) => checkpoint.path)).toEqual(['workspace:ok.txt']);
    await expectStoreIntact(fixture, session.id);
  });

  it('runs shell commands with the store read-only: rm -rf, truncation, mv and writes into the pack directory cost no session, and the person is told', async () => {
    const commands = [
      'rm -rf .waypoint',
      'echo x > .waypoint/waypoint.db',
      'mv .waypoint x',
      'echo x > .waypoint/waypoint.db.blobs/new.pack',
      'rm -rf link/',
      'git init -q . && git clean -fdxq; rm -rf ./* ./.[!.]*; echo after > made.txt',
    ];
    fixture = await homeFixture([
      { toolCalls: [{ toolName: 'write', input: { path: 'keep.txt', content: 'kept\n' } }] },
      { toolCalls: commands.map((command) => ({ toolName: 'bash', input: { command } })) },
      { text: 'Cleaned up.' },
      { toolCalls: [{ toolName: 'write', input: { path: 'later.txt', content: 'later\n' } }] },
      { text: 'Still works.' },
    ]);
    const { dir, runtime, waypoint } = fixture;
    symlinkSync(join(dir, '.waypoint'), join(dir, 'link'));
    const session = await runtime.startSession({ workdir: dir });

    const result = await runtime.runTurn(session.id, 'Clean the workspace');
    expect(result.status).toBe('complete');
    const outputs = toolOutputs(await waypoint.store.history(session.id)).slice(1);
    expect(outputs).toHaveLength(commands.length);
    for (const output of outputs.slice(0, 5)) expect(output.value).toContain("Waypoint's store");
    expect(readFileSync(join(dir, 'made.txt'), 'utf8')).toBe('after\n');
    expect(existsSync(join(dir, 'x'))).toBe(false);
    expect(existsSync(join(dir, '.waypoint', 'waypoint.db.blobs', 'new.pack'))).toBe(false);
    // The command did delete the person's own file (and it is recorded, so it can be undone).
    expect(existsSync(join(dir, 'keep.txt'))).toBe(false);
    const paths = (await waypoint.store.listCheckpoints(session.id)).map((checkpoint) => `${checkpoint.source} ${checkpoint.op} ${checkpoint.path}`);
    expect(paths).toEqual(expect.arrayContaining(['tool create workspace:keep.txt', 'exec delete workspace:keep.txt', 'exec create workspace:made.txt']));

    const later = await runtime.runTurn(session.id, 'Write another file');
    expect(later.status).toBe('complete');
    await expectStoreIntact(fixture, session.id);
  });

  it('protects the store from a background command too', async () => {
    fixture = await homeFixture([
      { toolCalls: [{ toolName: 'bash', input: { command: 'rm -rf .waypoint; mv .waypoint gone', background: true } }] },
      { text: 'Started.' },
    ]);
    const { dir, runtime, storePath } = fixture;
    const session = await runtime.startSession({ workdir: dir });
    expect((await runtime.runTurn(session.id, 'Clean up in the background')).status).toBe('complete');
    await runtime.settleBackground();
    expect(existsSync(storePath)).toBe(true);
    expect(existsSync(join(dir, 'gone'))).toBe(false);
    await expectStoreIntact(fixture, session.id);
  });

  it('refuses a shell command (STORE_NOT_PROTECTED, nothing run) where the store cannot be made read-only, and runs it when the store is elsewhere', async () => {
    fixture = await homeFixture([
      {
        toolCalls: [
          { toolName: 'bash', input: { command: 'touch ran' } },
          { toolName: 'bash', input: { command: 'touch ran-later', background: true } },
        ],
      },
      { text: 'Refused.' },
      { toolCalls: [{ toolName: 'bash', input: { command: 'touch ran' } }] },
      { text: 'Ran.' },
    ]);
    const { dir, workdir, runtime, waypoint } = fixture;
    process.env.WAYPOINT_UNSHARE = join(dir, 'no-such-unshare');
    const inside = await runtime.startSession({ workdir: dir });
    expect((await runtime.runTurn(inside.id, 'Touch a file')).status).toBe('complete');
    const outputs = toolOutputs(await waypoint.store.history(inside.id));
    expect(outputs.map((output) => output.type)).toEqual(['error-text', 'error-text']);
    for (const output of outputs) expect(output.value).toContain('(STORE_NOT_PROTECTED)');
    await runtime.settleBackground();
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(existsSync(join(dir, 'ran-later'))).toBe(false);

    const outside = await runtime.startSession({ workdir });
    expect((await runtime.runTurn(outside.id, 'Touch a file')).status).toBe('complete');
    expect(existsSync(join(workdir, 'ran'))).toBe(true);
  });
});
