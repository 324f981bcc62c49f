import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const CODEX = resolve(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'codex');

/**
 * Codex's home for a test: a `config.toml` whose model provider is the local Responses server at
 * `baseUrl` (`wire_api = "responses"`, the key read from FAKE_OPENAI_KEY). The model is one of
 * Codex's bundled catalog (`gpt-5.5`), so its tools include the freeform `apply_patch`.
 */
export function writeCodexConfig(codexHome: string, baseUrl: string): void {
  mkdirSync(codexHome, { recursive: true });
  const config = [
    'model = "gpt-5.5"',
    'model_provider = "local"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.local]',
    'name = "local scripted server"',
    `base_url = "${baseUrl}"`,
    'wire_api = "responses"',
    'env_key = "FAKE_OPENAI_KEY"',
    '',
  ].join('\n');
  writeFileSync(join(codexHome, 'config.toml'), config);
}

export interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Codex's session (thread) id, from `--json`'s `thread.started`. */
  sessionId: string | null;
}

/**
 * Runs the real Codex CLI headless in `cwd`: `codex exec --json <prompt>` (or `codex exec resume
 * <id> <prompt>`), its home in `home`/`codexHome`, no sandbox and no approvals (the test's temp
 * directory is the workspace), and the hooks run without Codex's trust review
 * (`--dangerously-bypass-hook-trust`: the review is interactive, `/hooks` in Codex's TUI).
 */
export function runCodex(prompt: string, options: { cwd: string; home: string; codexHome: string; resume?: string; timeoutMs?: number }): Promise<CodexRun> {
  const args = [
    'exec',
    ...(options.resume ? ['resume'] : []),
    '--json',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    '--dangerously-bypass-hook-trust',
    ...(options.resume ? [options.resume] : []),
    prompt,
  ];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(CODEX, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: options.home, CODEX_HOME: options.codexHome, FAKE_OPENAI_KEY: 'any', RUST_LOG: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const started = /"thread_id":"([^"]+)"/.exec(stdout);
      resolvePromise({ code, stdout, stderr, sessionId: started?.[1] ?? null });
    });
  });
}
