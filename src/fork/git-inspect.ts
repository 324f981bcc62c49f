import { execFile } from 'node:child_process';
import { GitCommandFailedError } from './fork-errors.js';
import {
  FEATURES_QUESTION,
  findGitWorkTree,
  gitEnvironment,
  gitFeatures,
  type GitFeatures,
  type GitListing,
  type GitWorkTree,
  LISTING_QUESTIONS,
  listWorkTree,
  type NoGitReason,
  parseFeatures,
  parseListing,
  parseWorkTree,
  WORK_TREE_QUESTION,
} from './git-checkout.js';

/** What a fork asks git about the parent's work tree, each answer awaited where it is needed. */
export interface WorkTreeAnswers {
  repository: Promise<GitWorkTree | { reason: NoGitReason }>;
  features: Promise<GitFeatures>;
  listing: Promise<GitListing>;
}

/** Printed after each command's output, with its exit status: two NULs never occur in a `-z` listing (no path is empty), nor any NUL in the other answers. */
const END = '\0\0wp-end ';

/**
 * Asks git everything a fork needs from the work tree at `top` — is it the top of one with a
 * commit (`rev-parse`), the settings that decide how the fork is registered and indexed
 * (`config`), the untracked and the ignored paths, and with `tracked` the index — in one `sh`
 * running the git commands one after another. Starting a process from Node copies this whole
 * process first (some milliseconds each, taken from the copy workers on a small machine); the
 * shell's own children are cheap. Each promise resolves as the separate calls in
 * `git-checkout.ts` would; where `sh` cannot be started, or `rev-parse` fails (the reason is then
 * worked out as before), those calls are made instead.
 */
export function inspectWorkTree(top: string, options: { tracked: boolean }): WorkTreeAnswers {
  const questions: ReadonlyArray<readonly string[]> = [
    WORK_TREE_QUESTION,
    FEATURES_QUESTION,
    LISTING_QUESTIONS.untracked,
    LISTING_QUESTIONS.ignored,
    ...(options.tracked ? [LISTING_QUESTIONS.tracked] : []),
  ];
  // The arguments are constants without a single quote; the directory travels as `$1`, never through the script's text.
  const script = questions.map((args) => `git -C "$1" ${args.map((arg) => `'${arg}'`).join(' ')}; printf '\\0\\0wp-end %d\\0' $?`).join('\n');
  type Answers = { parsed: Array<{ out: Buffer; status: number }>; stderr: string } | null;
  const answers = new Promise<Answers>((resolve) => {
    execFile('sh', ['-c', script, 'sh', top], { encoding: 'buffer', maxBuffer: 1 << 30, env: gitEnvironment() }, (error, stdout, stderr) => {
      const parsed = error ? null : splitAnswers(stdout, questions.length);
      resolve(parsed === null ? null : { parsed, stderr: stderr.toString().trim() });
    });
  });
  const failed = (args: readonly string[], stderr: string) => new GitCommandFailedError({ args: [...args], cwd: top, stderr });
  const repository = answers.then((answered) =>
    answered === null || answered.parsed[0]!.status !== 0 ? findGitWorkTree(top) : parseWorkTree(top, answered.parsed[0]!.out.toString()),
  );
  const features = answers.then((answered) => {
    if (answered === null) return gitFeatures(top);
    const config = answered.parsed[1]!;
    return parseFeatures(config.status === 0 ? config.out : Buffer.alloc(0));
  });
  const listing = answers.then((answered) => {
    if (answered === null) return listWorkTree(top, { tracked: options.tracked });
    const [untracked, ignored, stage] = [answered.parsed[2]!, answered.parsed[3]!, answered.parsed[4]];
    if (untracked.status !== 0) throw failed(LISTING_QUESTIONS.untracked, answered.stderr);
    if (ignored.status !== 0) throw failed(LISTING_QUESTIONS.ignored, answered.stderr);
    if (stage && stage.status !== 0) throw failed(LISTING_QUESTIONS.tracked, answered.stderr);
    return parseListing(stage?.out ?? Buffer.alloc(0), untracked.out, ignored.out);
  });
  // Each is awaited later, or dropped when the directory turns out not to be a work tree to check out.
  for (const answer of [repository, features, listing]) answer.catch(() => {});
  return { repository, features, listing };
}

/** The shell's output cut at each end mark: `count` answers, or null when it is not that. */
function splitAnswers(stdout: Buffer, count: number): Array<{ out: Buffer; status: number }> | null {
  const answers: Array<{ out: Buffer; status: number }> = [];
  let offset = 0;
  for (let index = 0; index < count; index++) {
    const end = stdout.indexOf(END, offset, 'latin1');
    if (end === -1) return null;
    const close = stdout.indexOf(0, end + END.length);
    if (close === -1) return null;
    const status = Number(stdout.toString('latin1', end + END.length, close));
    if (!Number.isInteger(status)) return null;
    answers.push({ out: stdout.subarray(offset, end), status });
    offset = close + 1;
  }
  return offset === stdout.length ? answers : null;
}
