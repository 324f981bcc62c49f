import type { ScanResult, SkippedPath } from '../workspace/index.js';
import type { UncoveredPath } from './exec-capture.js';
import type { PendingChange } from './record-changes.js';

/**
 * The changes between two scans that a scan sees but cannot keep the content of, so they are
 * never silently lost from the record:
 *
 * - entries whose names are not valid UTF-8 (`invalid_name`): created, deleted or changed (their
 *   stat signature differs) ones become `skipped` checkpoints, and every one still present is
 *   reported, since what happens inside such a directory is not seen;
 * - ignored paths (`.gitignore` / `.waypointignore`) that were there before and are gone after
 *   (`rm .env`, `rm -r build`): a `skipped` delete each.
 *
 * All of them go to `uncovered` (the turn is then partially protected), and a rewind that meets a
 * `skipped` checkpoint reports it as not restored instead of succeeding around it. Creations and
 * deletions are inferred only when both scans are complete, as for tracked files.
 */
export function unseenChanges(before: ScanResult, after: ScanResult): { changes: PendingChange[]; uncovered: UncoveredPath[] } {
  const complete = before.complete && after.complete;
  const changes: PendingChange[] = [];
  const uncovered: UncoveredPath[] = [];
  const note = (item: SkippedPath, detail: string) => uncovered.push({ path: item.path, reason: item.reason, detail });

  const wasInvalid = byPath(before.skipped, 'invalid_name');
  const nowInvalid = byPath(after.skipped, 'invalid_name');
  for (const [path, item] of nowInvalid) {
    const old = wasInvalid.get(path);
    if (old === undefined) {
      if (!complete) continue;
      changes.push({ op: 'create', path, beforeHash: null, afterHash: null, skipReason: 'invalid_name' });
      note(item, `created by the command: ${item.detail ?? 'its name is not valid UTF-8'}; it cannot be undone`);
    } else if (old.signature !== item.signature) {
      changes.push({ op: 'modify', path, beforeHash: null, afterHash: null, skipReason: 'invalid_name' });
      note(item, `changed by the command: ${item.detail ?? 'its name is not valid UTF-8'}; it cannot be undone`);
    } else {
      note(item, item.detail ?? 'its name is not valid UTF-8');
    }
  }
  if (!complete) return { changes, uncovered };
  for (const [path, old] of wasInvalid) {
    if (nowInvalid.has(path)) continue;
    changes.push({ op: 'delete', path, beforeHash: null, afterHash: null, skipReason: 'invalid_name' });
    note(old, `deleted by the command: ${old.detail ?? 'its name is not valid UTF-8'}; it cannot be restored`);
  }

  const nowIgnored = byPath(after.skipped, 'ignored');
  for (const [path, old] of byPath(before.skipped, 'ignored')) {
    if (nowIgnored.has(path) || after.snapshot.has(path)) continue;
    changes.push({ op: 'delete', path, beforeHash: null, afterHash: null, skipReason: 'ignored' });
    note(old, 'deleted by the command: ignored paths are not checkpointed, so it cannot be restored');
  }
  return { changes, uncovered };
}

function byPath(skipped: readonly SkippedPath[], reason: SkippedPath['reason']): Map<string, SkippedPath> {
  const found = new Map<string, SkippedPath>();
  for (const item of skipped) if (item.reason === reason) found.set(item.path, item);
  return found;
}
