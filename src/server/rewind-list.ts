import { listRewindTargets, type RewindTarget } from '../history/index.js';
import type { Store } from '../store/index.js';

export interface RewindList {
  sessionId: string;
  running: boolean;
  targets: Array<RewindTarget & { fileChanges: number }>;
}

/**
 * The `/rewind` list of each session, kept while the session's head, branch generation and last
 * checkpoint stay as they were (two indexed reads to check), so the list a tab opens is usually
 * ready: a tab that subscribes to a session has it read in the background.
 */
export class RewindLists {
  private readonly lists = new Map<string, { key: string; targets: Promise<RewindList['targets']> }>();

  async get(store: Store, sessionId: string, running: boolean): Promise<RewindList> {
    const key = await this.keyOf(store, sessionId);
    let entry = this.lists.get(sessionId);
    if (!entry || entry.key !== key) {
      entry = { key, targets: read(store, sessionId) };
      this.lists.set(sessionId, entry);
      entry.targets.catch(() => this.lists.delete(sessionId));
    }
    return { sessionId, running, targets: await entry.targets };
  }

  /**
   * Reads a session's list ahead of its first use (errors are left for that use to report). It
   * starts on the next turn of the event loop, so the page a tab asks for with its subscription is
   * read first: the first paint waits on nothing else.
   */
  prefetch(store: Store, sessionId: string): void {
    setTimeout(() => this.get(store, sessionId, false).catch(() => {}), 0);
  }

  private async keyOf(store: Store, sessionId: string): Promise<string> {
    const [session, last] = await Promise.all([store.getSession(sessionId), store.listCheckpoints(sessionId, { last: 1 })]);
    return `${session.headMessageId}:${session.branchGeneration}:${last[0]?.seq ?? 0}`;
  }
}

async function read(store: Store, sessionId: string): Promise<RewindList['targets']> {
  const [targets, checkpoints] = await Promise.all([listRewindTargets(store, sessionId), store.listCheckpoints(sessionId)]);
  const changes = new Map<string, number>();
  for (const checkpoint of checkpoints)
    if (checkpoint.anchorMessageId) changes.set(checkpoint.anchorMessageId, (changes.get(checkpoint.anchorMessageId) ?? 0) + 1);
  return targets.map((target) => ({ ...target, fileChanges: changes.get(target.messageId) ?? 0 }));
}
