import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const CLAUDE = resolve(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'claude');

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: the result JSON of `claude -p --output-format json`.
  result: any;
}

/**
 * Runs the real Claude Code binary headless in `cwd`: `claude -p <prompt> --output-format json`,
 * its home in `home` (settings, transcripts), the model at `baseUrl` (a {@link MessagesServer}),
 * the tools allowed without asking (`allowedTools`, default the built-in file tools and Bash). `resume`
 * continues an earlier session (its id); `extraArgs` go last (`--mcp-config …`).
 */
export function runClaude(
  prompt: string,
  options: {
    cwd: string;
    home: string;
    baseUrl: string;
    resume?: string;
    timeoutMs?: number;
    allowedTools?: string;
    extraArgs?: string[];
    env?: Record<string, string>;
  },
): Promise<ClaudeRun> {
  const args = [
    '-p',
    prompt,
    '--output-format',
    'json',
    '--allowedTools',
    options.allowedTools ?? 'Bash Write Edit Read',
    ...(options.resume ? ['--resume', options.resume] : []),
    ...(options.extraArgs ?? []),
  ];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(CLAUDE, args, {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: options.home,
        ANTHROPIC_BASE_URL: options.baseUrl,
        ANTHROPIC_API_KEY: 'any',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        // The hooks' resident helper stops soon after the test's last event.
        WAYPOINT_HOOK_HELPER_IDLE_MS: '3000',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 45_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let result: unknown = null;
      try {
        result = JSON.parse(stdout);
      } catch {
        result = null;
      }
      resolvePromise({ code, stdout, stderr, result });
    });
  });
}
