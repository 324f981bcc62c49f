import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStore } from '../../src/blobs/index.js';
import { openCaptureContext, type CaptureContext } from '../../src/checkpoint/index.js';
import { pinTurnBoundary } from '../../src/fork/index.js';
import type { JsonObject } from '../../src/model/index.js';
import { SqliteStore } from '../../src/store/index.js';

export interface TurnIds {
  turnId: string;
  inputId: string;
  replyId: string;
}

/** A real SQLite store in `<tmp>/store/w.db` and a real workspace `<tmp>/ws` of session "Main". */
export async function createForkFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-fork-'));
  const root = join(dir, 'ws');
  mkdirSync(root);
  const storePath = join(dir, 'store', 'w.db');
  const store = await SqliteStore.open({ path: storePath });
  const blobs = new BlobStore(store);
  const session = await store.createSession({ title: 'Main', workdir: root });

  /** One complete turn: input, whatever `work` does through a capture context, a final reply; boundary pinned. */
  async function turn(
    text: string,
    work?: (context: CaptureContext) => Promise<void>,
    reply: { metadata?: JsonObject; status?: 'complete' | 'error' } = {},
  ): Promise<TurnIds> {
    const { message: input } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text }] });
    const created = await store.createTurn({ sessionId: session.id, userMessageId: input.id });
    if (work) await work(await openCaptureContext({ store, blobs, sessionId: session.id, turnId: created.id }));
    const { message: last } = await store.appendMessage({
      sessionId: session.id,
      role: 'assistant',
      turnId: created.id,
      status: reply.status ?? 'complete',
      parts: [{ type: 'text', text: `done: ${text}` }],
      metadata: reply.metadata ?? {},
    });
    await pinTurnBoundary(store, created.id);
    await store.updateTurn(created.id, { status: reply.status === 'error' ? 'error' : 'complete', endedAt: Date.now() });
    return { turnId: created.id, inputId: input.id, replyId: last.id };
  }

  return {
    dir,
    root,
    storePath,
    store,
    blobs,
    sessionId: session.id,
    turn,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type ForkFixture = Awaited<ReturnType<typeof createForkFixture>>;

/** Every file and symlink under `dir` with its bytes (link text) and permission bits, independently of Waypoint's code. */
export function snapshotDir(dir: string): Record<string, { kind: 'file' | 'symlink'; mode: number; content: string }> {
  const out: Record<string, { kind: 'file' | 'symlink'; mode: number; content: string }> = {};
  const walk = (relative: string): void => {
    for (const name of readdirSync(join(dir, relative)).sort()) {
      const path = relative ? `${relative}/${name}` : name;
      const stats = lstatSync(join(dir, path));
      if (stats.isDirectory()) walk(path);
      else if (stats.isSymbolicLink()) out[path] = { kind: 'symlink', mode: stats.mode & 0o7777, content: readlinkSync(join(dir, path)) };
      else out[path] = { kind: 'file', mode: stats.mode & 0o7777, content: readFileSync(join(dir, path)).toString('base64') };
    }
  };
  walk('');
  return out;
}
