// The person: edits and deletes files of the shared workspace directly, as an editor would, while
// the agents work. Each save moves whatever is at the path into the trash first (one rename, so
// exactly the file it displaces, whoever wrote it), then links the new content in, which fails if
// someone created the path meanwhile, in which case that file goes to the trash too. So the oracle
// knows exactly which contents the person itself destroyed: everything else that disappears must
// have been kept by Waypoint.
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { layoutOf, makeContent, Random, sha256, sleep, tryLock, unlock, type ProcessConfig } from './soak-env.js';
import { SoakLog } from './soak-log.js';

const config = JSON.parse(process.argv[2]!) as ProcessConfig;
const layout = layoutOf(config.root);
const random = new Random(config.seed);
const log = new SoakLog(join(layout.logs, `${config.proc}.jsonl`), config.proc);
let saves = 0;

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function save(path: string, content: Buffer | null): void {
  const id = `${config.proc}-${++saves}`;
  const target = join(layout.work, path);
  const staged = join(layout.personTmp, id);
  if (content !== null) writeFileSync(staged, content);
  const hash = content === null ? null : sha256(content);
  log.write({ type: 'person-intent', id, path, hash });
  const displaced: string[] = [];
  let written = content === null;
  for (let attempt = 0; attempt < 50; attempt++) {
    const trashName = `${id}.${attempt}`;
    try {
      renameSync(target, join(layout.trash, trashName));
      displaced.push(trashName);
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw error;
    }
    if (content === null) break;
    try {
      linkSync(staged, target);
      written = true;
      break;
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') mkdirSync(dirname(target), { recursive: true });
      else if (errnoOf(error) !== 'EEXIST') throw error;
    }
  }
  if (content !== null) unlinkSync(staged);
  log.write({ type: 'person-done', id, path, hash, written, displaced });
}

/**
 * An edit of one line (the last), keeping the rest: what lets a rewind merge the agent's own
 * change back out around it. A new file when there is nothing to edit.
 */
function editedLine(path: string): Buffer {
  let text: string;
  try {
    text = readFileSync(join(layout.work, path), 'utf8');
  } catch {
    return Buffer.from(makeContent(random, 'person'));
  }
  const lines = text.split('\n');
  if (lines.length < 4) return Buffer.from(makeContent(random, 'person'));
  lines[lines.length - 2] = `person ${random.token()} edit`;
  return Buffer.from(lines.join('\n'));
}

while (!existsSync(layout.stopFile)) {
  const path = random.pick(config.paths);
  // Never while a shell command may write the same file: its capture could not tell the two apart.
  if (tryLock(layout, [path], config.proc)) {
    try {
      const roll = random.next();
      save(path, roll < 0.15 ? null : roll < 0.5 ? editedLine(path) : Buffer.from(makeContent(random, 'person')));
    } finally {
      unlock(layout, [path]);
    }
  }
  await sleep(random.between(2, 25));
}
log.close();
