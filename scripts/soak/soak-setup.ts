// Builds a soak's world: the shared workspace with its initial files (logged, like every later
// write), a store with placeholder sessions first (the oldest, so retention deletes those) and then
// the two base sessions every worker shares.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { applyToolWrite, openCaptureContext, openWaypoint } from './engine.js';
import { layoutOf, makeContent, PLACEHOLDER_TITLE, Random, sha256, SOAK_PATHS, type SoakLayout } from './soak-env.js';
import { SoakLog } from './soak-log.js';

export const PLACEHOLDERS = 30;
export const BASE_SESSIONS = 2;

export async function createSoak(seed: number, parent = tmpdir()): Promise<SoakLayout> {
  const layout = layoutOf(mkdtempSync(join(parent, 'waypoint-soak-')));
  for (const dir of [layout.work, dirname(layout.storePath), layout.logs, layout.trash, layout.personTmp, layout.locks, layout.scratch])
    mkdirSync(dir, { recursive: true });
  const random = new Random(seed);
  const log = new SoakLog(join(layout.logs, 'main.jsonl'), 'main');
  for (const path of SOAK_PATHS) {
    const content = makeContent(random, 'initial');
    mkdirSync(dirname(join(layout.work, path)), { recursive: true });
    writeFileSync(join(layout.work, path), content);
    log.write({ type: 'initial', path, hash: sha256(content) });
  }
  log.close();
  const waypoint = await openWaypoint({ path: layout.storePath });
  try {
    for (let index = 0; index < PLACEHOLDERS; index++) {
      const workdir = join(layout.scratch, `p${index}`);
      mkdirSync(workdir);
      const session = await waypoint.store.createSession({ workdir, title: `${PLACEHOLDER_TITLE} ${index}` });
      const { message } = await waypoint.store.appendMessage({
        sessionId: session.id,
        role: 'user',
        kind: 'input',
        parts: [{ type: 'text', text: 'scratch' }],
      });
      const turn = await waypoint.store.createTurn({ sessionId: session.id, userMessageId: message.id });
      const capture = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId: turn.id });
      for (const name of ['a.txt', 'b.txt']) await applyToolWrite(capture, { path: name, content: makeContent(random, `placeholder-${index}`) });
      await waypoint.store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
    }
    for (let index = 0; index < BASE_SESSIONS; index++) await waypoint.store.createSession({ workdir: layout.work, title: `soak base ${index}` });
  } finally {
    await waypoint.close();
  }
  return layout;
}
