import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStore } from '../../blobs/index.js';
import { SessionHistory } from '../../history/index.js';
import type { MessageWithParts } from '../../model/index.js';
import { SqliteStore } from '../../store/index.js';

export interface DemoOptions {
  /** Store file; a fresh temporary one by default. */
  store?: string;
  print?: (line: string) => void;
}

/**
 * `waypoint demo`: a walk through the engine's foundation on an embedded store — a conversation,
 * a rewind that deletes nothing, a redo, a fork sharing its parent's messages, and file versions
 * kept as deltas — printing what happens. Needs no network and no API key.
 */
export async function runDemo(options: DemoOptions = {}): Promise<{ storePath: string }> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const storePath = options.store ?? join(mkdtempSync(join(tmpdir(), 'waypoint-demo-')), 'waypoint.db');
  const store = await SqliteStore.open({ path: storePath });
  try {
    const history = new SessionHistory(store);
    const session = await history.createSession({ title: 'Demo: fix the parser', workdir: process.cwd() });
    print(`store    ${storePath}`);
    print(`session  ${session.id} "${session.title}"${session.gitBranch ? ` on git branch ${session.gitBranch}` : ''}`);

    const say = (role: 'user' | 'assistant', text: string) => history.append(session.id, { role, parts: [{ type: 'text', text }] });
    const q1 = await say('user', 'Why does the parser choke on empty lines?');
    const a1 = await say('assistant', 'It splits on "\\n" and indexes [0] of an empty token.');
    const q2 = await say('user', 'Rewrite it with a regex.');
    const a2 = await say('assistant', 'Done: /^(\\w+)=(.*)$/ per line.');
    print('\nconversation');
    printPath(print, await history.history(session.id));

    const rewound = await history.moveHead({ sessionId: session.id, to: a1.id, reason: 'rewind', bumpGeneration: true });
    print(`\nrewind to before "${text(q2)}" (branch generation ${rewound.session.branchGeneration}); nothing is deleted:`);
    printPath(print, await history.history(session.id));
    const q2b = await say('user', 'Skip empty lines instead.');
    await say('assistant', 'Added `if (!line) continue`.');
    print('\nnew branch after the rewind');
    printPath(print, await history.history(session.id));
    const tree = await store.listTreeMessages(session.treeId);
    print(`the tree still holds all ${tree.length} messages; ${(await store.children(a1.id)).length} branches grow from "${text(a1)}"`);

    const { session: fork } = await history.startSessionAt({ parentSessionId: session.id, at: q1.id, kind: 'fork' });
    await history.append(fork.id, { role: 'assistant', parts: [{ type: 'text', text: 'Alternative: use a streaming tokenizer.' }] });
    print(`\nfork ${fork.id} "${fork.title}" shares the first message with its parent:`);
    printPath(print, await history.history(fork.id));

    await history.moveHead({ sessionId: session.id, to: a2.id, reason: 'redo' });
    print('\nredo: the head returns to the first branch');
    printPath(print, await history.history(session.id));
    const moves = await store.listEntries(session.id, { type: 'head-move' });
    print(`head moves are recorded as entries: ${moves.map((entry) => entry.data.reason).join(', ')}; "${text(q2b)}" is still one move away`);

    const blobs = new BlobStore(store);
    let content = Buffer.from(Array.from({ length: 2000 }, (_, line) => `line ${line}: ${'x'.repeat(40)}`).join('\n'));
    let previous = await blobs.put(content);
    for (let edit = 0; edit < 20; edit++) {
      content = Buffer.from(content.toString().replace(`line ${edit * 50}:`, `LINE ${edit * 50} (edited):`));
      previous = await blobs.put(content, { baseHash: previous });
    }
    await store.setBlobPins('demo', [previous]);
    const stats = await store.blobs.stats();
    print(`\n21 versions of a ${(content.length / 1024).toFixed(0)} KiB file: ${(stats.rawBytes / 1024).toFixed(0)} KiB of content stored in ${(stats.storedBytes / 1024).toFixed(1)} KiB (deltas + deflate)`);
    print(`latest version reads back verified: ${(await blobs.get(previous)).equals(content)}`);
    const report = await blobs.gc({ dryRun: true });
    print(`gc dry run: ${report.live} live, ${report.unreachable.length} unreachable, ${report.freedBytes} bytes would be freed`);
    return { storePath };
  } finally {
    await store.close();
  }
}

function text(message: MessageWithParts): string {
  const first = message.parts[0]?.content;
  return typeof first?.text === 'string' ? first.text : `(${message.kind})`;
}

function printPath(print: (line: string) => void, path: MessageWithParts[]): void {
  if (path.length === 0) print('  (empty)');
  for (const message of path) print(`  ${message.role.padEnd(9)} ${text(message)}`);
}
