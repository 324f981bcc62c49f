#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv[0] === 'hooks' && (argv[1] === 'run' || argv[1] === 'serve')) {
  // The hook command Claude Code and Codex CLI wait for on every event: loaded alone, without the rest of the CLI.
  const { runHookCommand } = await import('../dist/integrations/claude/hook-client.js');
  process.exitCode = await runHookCommand(argv.slice(1));
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(argv);
}
