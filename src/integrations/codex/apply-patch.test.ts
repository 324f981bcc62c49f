import { describe, expect, it } from 'vitest';
import { patchedFiles, patchedPaths } from './apply-patch.js';

describe("Codex's apply_patch patches: the files they touch", () => {
  it('reads adds, updates, moves and deletes from the section headers, not from the hunks', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: src/new.ts',
      '+*** Delete File: not-a-header.txt',
      '*** Update File: a.txt',
      '*** Move to: b/a.txt',
      '@@ context',
      '-x',
      '+y',
      '*** Delete File: old.txt',
      '*** Update File: c.txt',
      '@@',
      '-1',
      '+2',
      '*** End Patch',
    ].join('\n');
    expect(patchedFiles(patch)).toEqual([
      { op: 'add', path: 'src/new.ts' },
      { op: 'update', path: 'a.txt', moveTo: 'b/a.txt' },
      { op: 'delete', path: 'old.txt' },
      { op: 'update', path: 'c.txt' },
    ]);
    expect(patchedPaths(patchedFiles(patch)!)).toEqual(['src/new.ts', 'a.txt', 'b/a.txt', 'old.txt', 'c.txt']);
  });

  it('takes CRLF lines and text around the envelope (a heredoc), and nothing after its end', () => {
    const patch = "apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Add File: x.txt\r\n+x\r\n*** End Patch\r\n*** Add File: after.txt\r\nEOF\r\n";
    expect(patchedFiles(patch)).toEqual([{ op: 'add', path: 'x.txt' }]);
  });

  it('is null for text that is no patch, or a patch that names no file (the call is then scanned)', () => {
    expect(patchedFiles('echo hi')).toBeNull();
    expect(patchedFiles('*** Begin Patch\n*** End Patch\n')).toBeNull();
  });
});
