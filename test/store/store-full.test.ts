import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyToolWrite, captureExec, openCaptureContext, type CaptureContext } from '../../src/checkpoint/index.js';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';
import { hashContent, WaypointError } from '../../src/model/index.js';

/**
 * A real full file system under the store: a small tmpfs mounted by the test (it runs as root),
 * the store on it, the workspace on the ordinary disk. Skipped, with the reason, only where the
 * kernel refuses the mount (no root, no CAP_SYS_ADMIN in a container).
 */
const base = mkdtempSync(join(tmpdir(), 'waypoint-full-'));
const mountPoint = join(base, 'mnt');
mkdirSync(mountPoint);
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', mountPoint], { encoding: 'utf8' });
const canMount = mounted.status === 0;
const mountRefusal = canMount ? '' : ` (skipped: mount -t tmpfs was refused here: ${(mounted.stderr || String(mounted.error)).trim()})`;

/** Fill the tmpfs with one file until ENOSPC, then give back `free` bytes (tmpfs frees whole pages on truncate). */
function fillLeaving(filler: string, free: number): void {
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  for (let size = 4096; size > 0; ) {
    try {
      writeSync(fd, Buffer.alloc(size, 1));
    } catch {
      size = size >> 1;
    }
  }
  ftruncateSync(fd, Math.max(0, fstatSync(fd).size - free));
  closeSync(fd);
}

/** A fixed-seed generator, so a failing run can be replayed (the seed is printed with the failure). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe(`a full disk under the store${mountRefusal}`, () => {
  let workspace: string;
  let waypoint: Waypoint;
  let context: CaptureContext;

  beforeAll(async () => {
    if (!canMount) return;
    workspace = join(base, 'ws');
    mkdirSync(workspace);
    waypoint = await openWaypoint({ path: join(mountPoint, 'store', 'waypoint.db') });
    const session = await waypoint.history.createSession({ workdir: workspace });
    const input = await waypoint.history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'edit the files' }] });
    const turn = await waypoint.store.createTurn({ sessionId: session.id, userMessageId: input.id });
    context = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId: turn.id });
  });

  afterAll(async () => {
    if (canMount) {
      await waypoint?.close();
      execFileSync('umount', ['-l', mountPoint]);
    }
    rmSync(base, { recursive: true, force: true });
  });

  it.skipIf(!canMount)(
    'tool writes and shell captures raise STORE_FULL, leave no file changed without its checkpoint, and work again once space is freed',
    async () => {
      const seed = 20261201;
      const next = random(seed);
      const filler = join(mountPoint, 'filler');
      const failures = new Map<string, number>();
      let successes = 0;
      try {
        // From no room at all to a few pages: each level stops a different step (pack file, blob index, checkpoint row, WAL).
        for (const free of [0, 4096, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 131072, 262144, 524288, 1048576]) {
          fillLeaving(filler, free);
          if (free === 0) {
            // A new store cannot be created on the full disk either: typed, not a raw SQLITE_FULL.
            const opening = await openWaypoint({ path: join(mountPoint, 'second', 'waypoint.db') }).then(
              (opened) => opened.close(),
              (error: unknown) => error,
            );
            expect(WaypointError.is(opening, 'STORE_FULL')).toBe(true);
          }
          for (let step = 0; step < 8; step++) {
            const name = `f${Math.floor(next() * 4)}.txt`;
            const path = join(workspace, name);
            // A person's edit first, so a tool write overwrites content that exists only on disk.
            writeFileSync(path, `person ${free} ${step} ${next()}\n`);
            const before = readFileSync(path);
            const content = Buffer.from(`agent ${free} ${step} `.padEnd(100 + Math.floor(next() * 20_000), String.fromCharCode(97 + step)));
            const shell = next() < 0.3;
            try {
              if (shell) await captureExec(context, () => writeFileSync(path, content));
              else await applyToolWrite(context, { path: name, content });
              successes++;
              const checkpoints = await waypoint.store.listCheckpoints(context.sessionId);
              expect(checkpoints.some((checkpoint) => checkpoint.afterHash === hashContent(content))).toBe(true);
            } catch (error) {
              if (!WaypointError.is(error))
                throw new Error(`raw ${(error as { code?: string }).code ?? ''} ${(error as Error).message} (seed ${seed}, free ${free}, step ${step})`, {
                  cause: error,
                });
              expect({ code: error.code, seed, free, step }).toEqual({ code: 'STORE_FULL', seed, free, step });
              expect(error.message).toContain('is full');
              failures.set(shell ? 'shell' : 'tool', (failures.get(shell ? 'shell' : 'tool') ?? 0) + 1);
              if (!shell) {
                // Nothing half-written: the person's edit is still the file (the agent's content was never renamed into place).
                expect({ content: readFileSync(path).toString(), seed, free, step }).toEqual({ content: before.toString(), seed, free, step });
              }
            }
          }
          rmSync(filler, { force: true });
        }
      } finally {
        rmSync(filler, { force: true });
      }
      expect(failures.get('tool') ?? 0).toBeGreaterThan(0);
      expect(failures.get('shell') ?? 0).toBeGreaterThan(0);

      // Space is back: writes work, and every recorded checkpoint's content reads back.
      const after = await applyToolWrite(context, { path: 'f0.txt', content: 'after the disk was freed\n' });
      expect(after.checkpoint).not.toBeNull();
      const checkpoints = await waypoint.store.listCheckpoints(context.sessionId);
      const hashes = [
        ...new Set(checkpoints.flatMap((checkpoint) => [checkpoint.beforeHash, checkpoint.afterHash]).filter((hash): hash is string => hash !== null)),
      ];
      const contents = await waypoint.blobs.getMany(hashes);
      expect(contents.size).toBe(hashes.length);
      expect(successes).toBeGreaterThan(0);
    },
  );
});
