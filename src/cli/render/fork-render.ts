import type { IgnoredEntryReport, IsolatedMaterialization, NoGitReason, NotCopiedReason } from '../../fork/index.js';
import { formatBytes, plural, shortPath } from './format.js';

const NO_GIT: Record<NoGitReason, string> = {
  not_a_git_work_tree: 'not a git work tree',
  subdirectory_of_work_tree: 'the workspace is a subdirectory of a git work tree, not its top',
  no_commit_yet: 'the repository has no commit yet',
  git_unavailable: 'git is not installed',
  built_from_store: "built from the store: the parent's directory is not reachable here, and git metadata is not stored",
};

const NOT_COPIED: Record<NotCopiedReason, string> = {
  missing: "tracked, but missing from the parent's directory now",
  submodule: 'a submodule: run `git submodule update --init` in the fork',
  store_file: "Waypoint's own store",
  not_regular: 'not a regular file',
  invalid_name: 'a name that is not UTF-8',
  unreadable: 'could not be read',
  conflict: 'below a path that was a file at the fork point',
  not_captured: 'its content was never stored',
};

function ignoredLine(entry: IgnoredEntryReport): string {
  const size = `${plural(entry.files, entry.action === 'link' ? 'link' : 'file')}, ${formatBytes(entry.bytes)}`;
  const what =
    entry.action === 'copy'
      ? `copied (${size})`
      : entry.action === 'link'
        ? `linked to the parent's (${size}; writes through them change the parent's files)`
        : 'left out';
  return `    ${entry.path} ${what}${entry.note ? `: ${entry.note}` : ''}`;
}

/** The lines of an isolated fork's report: its directory, git checkout, ignored paths, and what it did not copy and why. */
export function renderMaterialized(report: IsolatedMaterialization): string[] {
  const lines = [
    `  workspace: ${report.dir} (${plural(report.files, 'file')}, ${formatBytes(report.bytes)}; ${plural(report.restored.length, 'file')} as at the fork point)`,
  ];
  if (report.git) {
    const branch =
      report.git.parentBranch === null ? '' : ` (the parent is on ${report.git.parentBranch}; \`git switch -c <name>\` there keeps commits on a branch)`;
    lines.push(`  git: a linked work tree, detached at ${report.git.commit.slice(0, 12)}${branch}`);
    lines.push(`    registered in ${report.git.registration}; \`git worktree remove ${report.dir}\` deletes the fork's directory and the registration`);
    lines.push(
      report.git.index === 'copied'
        ? "    index: a copy of the parent's (what it tracks and has staged is tracked and staged here)"
        : "    index: read from the commit (the parent's could not be copied: its staged changes show as unstaged here)",
    );
  } else lines.push(`  git: none, a plain copy (${NO_GIT[report.gitSkipped ?? 'not_a_git_work_tree']})`);
  if (report.fromStore) {
    const scan =
      report.fromStore.scannedAt === null
        ? 'no workspace scan was saved: only files the session changed'
        : `the scan saved ${new Date(report.fromStore.scannedAt).toISOString()}, with later changes`;
    lines.push(`  from the store: ${scan}`, `  not in the store: ${report.fromStore.omitted}`);
  } else if (report.ignored.length > 0) lines.push(`  ignored paths (--ignored ${report.ignoredMode}):`, ...report.ignored.map(ignoredLine));
  else lines.push('  ignored paths: none');
  if (report.notCopied.length > 0)
    lines.push(
      `  not copied (${report.notCopied.length}):`,
      ...report.notCopied.map((entry) => `    ${entry.path}: ${NOT_COPIED[entry.reason]}${entry.detail ? ` (${entry.detail})` : ''}`),
    );
  lines.push(`  restored there: ${report.restored.map(shortPath).join(', ') || '(nothing)'}`);
  return lines;
}
