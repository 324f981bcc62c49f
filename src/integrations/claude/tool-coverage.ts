// No imports: the hook client loads this to answer tools that change nothing without starting anything.

/** Tools that record their own before/after (the file they name is read before and after the call). */
export const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** Tools that change no file: no scan around them. Every other tool (Bash, MCP tools, …) is scanned. */
export const READ_ONLY_TOOLS = new Set([
  'Read',
  'Glob',
  'Grep',
  'LS',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'TodoRead',
  'Task',
  'Agent',
  'BashOutput',
  'ExitPlanMode',
  'ToolSearch',
  'Skill',
]);

/** The file a file tool names (`file_path`, or `notebook_path` for NotebookEdit), or null. */
export function fileToolPath(input: Record<string, unknown> | undefined): string | null {
  const path = input?.file_path ?? input?.notebook_path;
  return typeof path === 'string' && path !== '' ? path : null;
}

/** How the handler covers a tool: its own before/after (file tools), a scan around it, or nothing (tools that change no file). */
export function coverageOf(toolName: string): 'file' | 'scan' | 'none' {
  if (FILE_TOOLS.has(toolName)) return 'file';
  return READ_ONLY_TOOLS.has(toolName) ? 'none' : 'scan';
}

/** A tool event with nothing to record now (its transcript lines are mirrored at the next event). */
export function changesNothing(event: { hook_event_name?: unknown; tool_name?: unknown }): boolean {
  const toolEvent = event.hook_event_name === 'PreToolUse' || event.hook_event_name === 'PostToolUse';
  return toolEvent && typeof event.tool_name === 'string' && coverageOf(event.tool_name) === 'none';
}
