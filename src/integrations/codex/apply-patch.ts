// No imports: parsed in the hook process before anything else is loaded.

/** One file an `apply_patch` call touches, as its patch names it. */
export interface PatchedFile {
  op: 'add' | 'update' | 'delete';
  path: string;
  /** `*** Move to:` of an update: the file's new path (the old one is removed). */
  moveTo?: string;
}

const HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const MOVE = /^\*\*\* Move to: (.+)$/;

/**
 * The files a Codex `apply_patch` patch touches (`*** Begin Patch` … `*** End Patch`, with
 * `*** Add File:`, `*** Update File:` (and `*** Move to:`), `*** Delete File:` sections), read from
 * its section headers only: the hunks' content is what the files will hold, which is read from disk
 * after the call instead. Null when the text has no `*** Begin Patch` or names no file (the call is
 * then scanned like a shell command).
 *
 * @example patchedFiles('*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+y\n*** End Patch')
 * // [{ op: 'update', path: 'a.txt', moveTo: 'b.txt' }]
 */
export function patchedFiles(patch: string): PatchedFile[] | null {
  const lines = patch.split(/\r?\n/);
  const begin = lines.findIndex((line) => line.trim() === '*** Begin Patch');
  if (begin < 0) return null;
  const files: PatchedFile[] = [];
  for (const raw of lines.slice(begin + 1)) {
    const line = raw.trimEnd();
    if (line.trim() === '*** End Patch') break;
    const header = HEADER.exec(line);
    if (header) {
      files.push({ op: header[1]!.toLowerCase() as PatchedFile['op'], path: header[2]!.trim() });
      continue;
    }
    const move = MOVE.exec(line);
    const last = files.at(-1);
    if (move && last?.op === 'update') last.moveTo = move[1]!.trim();
  }
  return files.length > 0 ? files : null;
}

/** Every path a patch reads or writes: each file, and the destination of each move. */
export function patchedPaths(files: readonly PatchedFile[]): string[] {
  return [...new Set(files.flatMap((file) => (file.moveTo === undefined ? [file.path] : [file.path, file.moveTo])))];
}
