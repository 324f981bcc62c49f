import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { shellInvocation, type ShellInvocation } from './protected-shell.js';

export interface CommandOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved as they arrived; the tail when longer than the cap. */
  output: string;
  timedOut: boolean;
  aborted: boolean;
}

/**
 * Start a shell command (see {@link shellInvocation}: `bash -c command`, with the store read-only
 * when it lies in the workspace) in its own process group, so a timeout or stop kills everything it
 * started.
 */
export function spawnShell(shell: ShellInvocation, cwd: string): ChildProcess {
  return spawn(shell.file, shell.args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WAYPOINT_AGENT: '1' } });
}

/** Kill a shell's whole process group (ignoring a group that is already gone). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Collect a child's output, keeping at most `cap` characters (the newest). Each stream is decoded
 * as UTF-8 with its own streaming decoder, so a character split across two chunks (or a chunk of
 * stdout and one of stderr arriving between its bytes) is decoded whole, never as U+FFFD.
 */
export function collectOutput(child: ChildProcess, cap: number): () => string {
  let output = '';
  let cut = 0;
  const append = (text: string) => {
    output += text;
    if (output.length > cap * 2) {
      cut += output.length - cap;
      output = output.slice(output.length - cap);
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => append(decoder.write(chunk)));
    // Bytes of a character the stream ended in the middle of come out as U+FFFD, once.
    stream.on('end', () => append(decoder.end()));
  }
  return () => {
    const total = cut + output.length;
    return total > cap ? `[${total - cap} earlier characters cut]\n${dropLoneLowSurrogate(output.slice(output.length - cap))}` : dropLoneLowSurrogate(output);
  };
}

/** A tail cut between the two halves of a surrogate pair starts with the lone second half: drop it. */
function dropLoneLowSurrogate(text: string): string {
  const first = text.charCodeAt(0);
  return first >= 0xdc00 && first <= 0xdfff ? text.slice(1) : text;
}

/**
 * Run a shell command to completion, killing it on timeout or abort. `protectedPaths` (the store's
 * files inside the workspace) are read-only for it; when that cannot be arranged the command is
 * refused with `STORE_NOT_PROTECTED` before anything runs.
 */
export function runCommand(
  command: string,
  options: { cwd: string; timeoutMs: number; signal: AbortSignal; maxOutputChars: number; protectedPaths?: readonly string[] },
): Promise<CommandOutcome> {
  const shell = shellInvocation(command, options.protectedPaths ?? []);
  return new Promise((resolve) => {
    if (options.signal.aborted) {
      resolve({ exitCode: null, signal: null, output: '', timedOut: false, aborted: true });
      return;
    }
    const child = spawnShell(shell, options.cwd);
    const output = collectOutput(child, options.maxOutputChars);
    let timedOut = false;
    let aborted = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup(child);
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve({ exitCode, signal, output: output(), timedOut, aborted });
    };
    child.on('error', () => finish(null, null));
    child.on('close', (code, signal) => finish(code, signal));
  });
}
