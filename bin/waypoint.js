#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv[0] === 'hooks' && (argv[1] === 'run' || argv[1] === 'serve')) {
  // The hook command Claude Code and Codex CLI wait for on every event: loaded alone, without the rest of the CLI.
  // Both entry points are the bundle `npm run build` makes (scripts/bundle-cli.mjs): a few files to load, not hundreds.
  const { runHookCommand } = await import('../dist/bin/hook-client.js');
  process.exitCode = await runHookCommand(argv.slice(1));
} else {
  // Before anything uses libuv's thread pool (its size is read once, when it starts): an isolated
  // fork keeps 16 file copies in flight, so that many threads run them while the file system
  // blocks one on its journal; the default 4 leaves the rest queued. Threads start only when used.
  process.env.UV_THREADPOOL_SIZE ??= '16';
  const { main } = await import('../dist/bin/main.js');
  process.exitCode = await main(argv);
}
