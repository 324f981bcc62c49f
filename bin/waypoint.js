#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv[0] === 'hooks' && argv[1] === 'run') {
  // The hook handler Claude Code waits for on every event: loaded alone, without the rest of the CLI.
  const { runHookProcess } = await import('../dist/integrations/claude/hook-main.js');
  process.exitCode = await runHookProcess(argv.slice(2));
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(argv);
}
