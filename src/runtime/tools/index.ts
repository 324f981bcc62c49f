import { bashTool } from './bash-tool.js';
import { editTool } from './edit-tool.js';
import { globTool } from './glob-tool.js';
import { grepTool } from './grep-tool.js';
import { readTool } from './read-tool.js';
import { subagentTool } from './subagent-tool.js';
import type { AnyRuntimeTool } from './tool.js';
import { writeTool } from './write-tool.js';

export {
  defineTool,
  text,
  errorText,
  truncateOutput,
  type RuntimeTool,
  type ToolCapture,
  type ToolContext,
  type ToolOutput,
  type ToolResult,
  type BackgroundStart,
  type SubagentRun,
} from './tool.js';
export { readTool, writeTool, editTool, bashTool, globTool, grepTool, subagentTool };
export { globToRegExp } from './glob-pattern.js';
export { shellInvocation, StoreNotProtectedError, type ShellInvocation } from './protected-shell.js';

/**
 * The built-in tools: read, write, edit, bash, glob, grep, subagent.
 *
 * @example
 * const runtime = createRuntime({ waypoint, model, tools: [...defaultTools(), myTool] });
 */
export function defaultTools(): AnyRuntimeTool[] {
  return [readTool, writeTool, editTool, bashTool, globTool, grepTool, subagentTool] as AnyRuntimeTool[];
}
