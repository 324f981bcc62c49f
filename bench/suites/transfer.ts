/**
 * Copying a session between stores: `waypoint export` to a portable file then `waypoint import`
 * into a new store, against copying the SQLite database and its blob packs as files (the floor: it
 * reads no record and checks no hash). Samples interleaved in one run; medians and their ratio.
 */
import { cpSync, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';
import { exportSession, importSession } from '../../src/operations/index.js';
import { timeOnce, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'transfer';

/** A session of `turns` turns: a question, a tool write changing a 4 KiB file (a checkpoint), a reply. */
async function recordSession(waypoint: Waypoint, turns: number): Promise<string> {
  const { store, blobs } = waypoint;
  const session = await store.createSession({ title: 'long', workdir: '/bench' });
  let previous: string | null = null;
  for (let turn = 0; turn < turns; turn++) {
    const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: `change ${turn}` }] });
    const record = await store.createTurn({ sessionId: session.id, userMessageId: message.id });
    const content = Buffer.from(`${`line ${turn % 7}\n`.repeat(400)}turn ${turn}\n`);
    const hash = await blobs.put(content, previous ? { baseHash: previous } : {});
    await store.addCheckpoints([
      {
        sessionId: session.id,
        turnId: record.id,
        op: previous ? 'modify' : 'create',
        path: 'notes.txt',
        beforeHash: previous,
        afterHash: hash,
        source: 'tool',
      },
    ]);
    previous = hash;
    await store.appendMessage({ sessionId: session.id, role: 'assistant', turnId: record.id, parts: [{ type: 'text', text: `done ${turn}` }] });
    await store.updateTurn(record.id, { status: 'complete', endedAt: Date.now() });
  }
  return session.id;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context) {
    const turns = context.quick ? 50 : 1_000;
    const runs = context.quick ? 3 : 7;
    const dir = context.tempDir();
    const source = join(dir, 'a', 'waypoint.db');
    const waypoint = await openWaypoint({ path: source });
    const sessionId = await recordSession(waypoint, turns);
    const copies: number[] = [];
    const transfers: number[] = [];
    let fileBytes = 0;
    for (let run = 0; run < runs; run++) {
      const copyDir = join(dir, `copy-${run}`);
      copies.push(
        await timeOnce(() => {
          for (const suffix of ['', '-wal', '.blobs']) {
            if (existsSync(`${source}${suffix}`)) cpSync(`${source}${suffix}`, join(copyDir, `waypoint.db${suffix}`), { recursive: true });
          }
        }),
      );
      rmSync(copyDir, { recursive: true, force: true });
      const file = join(dir, `export-${run}.wpx`);
      const target = join(dir, `import-${run}`, 'waypoint.db');
      transfers.push(
        await timeOnce(async () => {
          await exportSession({ waypoint }, { sessionId, to: file });
          const other = await openWaypoint({ path: target });
          try {
            await importSession({ waypoint: other }, { from: file });
          } finally {
            await other.close();
          }
        }),
      );
      fileBytes = statSync(file).size;
      rmSync(file);
      rmSync(join(dir, `import-${run}`), { recursive: true, force: true });
    }
    const footprint = (await waypoint.store.footprint()).totalBytes;
    await waypoint.close();
    const copyMs = median(copies);
    const transferMs = median(transfers);
    const results: BenchResult[] = [
      {
        suite: SUITE,
        name: `export + import of a ${turns}-turn session (file)`,
        value: transferMs,
        unit: 'ms',
        baseline: { name: 'copying the SQLite file and blob packs', value: copyMs },
        ratio: transferMs / copyMs,
        note: `medians of ${runs} interleaved samples`,
      },
      {
        suite: SUITE,
        name: `export file of a ${turns}-turn session`,
        value: fileBytes,
        unit: 'bytes',
        baseline: { name: 'the source store on disk', value: footprint },
        ratio: fileBytes / footprint,
      },
    ];
    return results;
  },
};

export default suite;
