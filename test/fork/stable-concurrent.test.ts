import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionForker } from '../../src/fork/index.js';
import { createForkFixture, type ForkFixture } from './fork-fixture.js';

let fx: ForkFixture;
beforeEach(async () => {
  fx = await createForkFixture();
});
afterEach(async () => fx.cleanup());

describe('stable fork while the parent runs its next turn', () => {
  it('commits while another process appends to the parent, without failing and without disturbing it', async () => {
    const one = await fx.turn('one');
    // The parent's next turn, running in another process: it appends under the parent's head until killed.
    const worker = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/append-forever.ts', fx.storePath, fx.sessionId], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        worker.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
        worker.once('exit', (code) => reject(new Error(`appender exited early (${code})`)));
      });
      const forker = new SessionForker({ store: fx.store, blobs: fx.blobs });
      const children = [];
      for (let index = 0; index < 8; index++) {
        children.push(await forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId, commandId: `stable-${index}` }));
      }
      // Interleaved appends from this process too, racing the forks.
      await Promise.all([
        forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId }),
        fx.store.appendMessage({ sessionId: fx.sessionId, role: 'user', parts: [{ type: 'text', text: 'racing' }] }),
      ]);
      expect(worker.exitCode).toBeNull(); // the appender was never disturbed
      for (const child of children) {
        expect(child.session.forkedFromMessageId).toBe(one.replyId);
        const path = await fx.store.history(child.session.id, { parts: 'none' });
        expect(path.map((message) => message.id).slice(0, 2)).toEqual([one.inputId, one.replyId]);
        expect(path.slice(2).every((message) => message.kind === 'fork_note')).toBe(true);
      }
    } finally {
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
    // The parent's history is one unbroken path: turn one, then everything appended after it.
    const parent = await fx.store.history(fx.sessionId, { parts: 'none' });
    expect(parent.slice(0, 2).map((message) => message.id)).toEqual([one.inputId, one.replyId]);
    expect(parent.length).toBeGreaterThan(8);
    for (const [index, message] of parent.entries()) expect(message.parentId).toBe(index === 0 ? null : parent[index - 1]!.id);
    expect(parent.some((message) => message.kind === 'fork_note')).toBe(false);
  }, 60_000);
});
