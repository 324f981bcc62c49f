import { createHash } from 'node:crypto';
import { effectPolicyFor, type EffectPolicyOptions } from '../fork/index.js';
import type { EffectsLedger } from '../history/index.js';
import { WaypointError, type Effect, type JsonValue, type Session } from '../model/index.js';
import type { ProposedCall } from './model-step.js';
import { runScanned } from './tools/scanned-tool.js';
import type { AnyRuntimeTool, ToolContext, ToolOutput, ToolResult } from './tools/tool.js';

/** What to do with an external tool call that needs a decision. */
export type EffectDecision = 'run' | 'dry-run' | 'deny';

/** Why the runtime asks before an external call. */
export interface EffectApprovalRequest {
  session: Session;
  toolName: string;
  input: JsonValue;
  idempotencyKey: string;
  /** `policy`: the session's effect policy is `ask` (forks, side chats). `already-succeeded`: an identical call already succeeded in this session. `in-doubt`: an identical call started and never finished (a crash). */
  reason: 'policy' | 'already-succeeded' | 'in-doubt';
  previous: Effect | null;
}

/** Decides external calls; without one, `ask` means deny and a repeat of a succeeded call is not run. */
export type ApproveEffect = (request: EffectApprovalRequest) => Promise<EffectDecision> | EffectDecision;

export interface ExecuteOptions {
  tools: ReadonlyMap<string, AnyRuntimeTool>;
  ledger: EffectsLedger;
  approveEffect?: ApproveEffect | undefined;
  effectPolicy?: EffectPolicyOptions | undefined;
}

/** The idempotency key of an external call: sha256 of the tool name and its canonical JSON input. */
export function idempotencyKey(toolName: string, input: JsonValue): string {
  return createHash('sha256').update(toolName).update('\0').update(canonicalJson(input)).digest('hex');
}

/**
 * Runs one proposed call: unknown tools, unparseable or invalid input and thrown errors become
 * `error-text` results the model can react to (a `WaypointError`'s message says what to do).
 * External tools go through the effects ledger and the session's effect policy:
 * `begin` before the call and `succeed`/`fail` after; a call whose key already succeeded in this
 * session is detected and, unless approved, not run again; `dry-run` describes without doing;
 * `ask` needs the approval callback.
 */
export async function executeToolCall(call: ProposedCall, context: ToolContext, options: ExecuteOptions): Promise<ToolResult> {
  const tool = options.tools.get(call.toolName);
  if (!tool) return error(`Unknown tool "${call.toolName}". Available tools: ${[...options.tools.keys()].join(', ')}.`);
  if (call.invalid !== null) return error(`The call to ${call.toolName} could not be read: ${call.invalid}`);
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return error(`Invalid input for ${call.toolName}: ${issue.path.join('.') || 'input'}: ${issue.message}.`);
  }
  if (context.signal.aborted) return error('Interrupted: the turn was stopped before this tool call ran.');
  if (tool.effect === 'external') return runExternal(tool, parsed.data, call, context, options);
  return run(tool, parsed.data, context);
}

async function run(tool: AnyRuntimeTool, input: unknown, context: ToolContext): Promise<ToolResult> {
  try {
    // A file-changing tool runs under the session's capture lock, so a background task's end scan never sees it half done.
    if (tool.effect === 'workspace' && !tool.runsTools) {
      return await context.exclusive(() =>
        tool.capture === 'self' ? tool.execute(input, context) : runScanned(tool, input, context, (thrown) => failed(tool, thrown, context)),
      );
    }
    return await tool.execute(input, context);
  } catch (thrown) {
    return failed(tool, thrown, context);
  }
}

function failed(tool: AnyRuntimeTool, thrown: unknown, context: ToolContext): ToolResult {
  if (context.signal.aborted) return error(`Interrupted: the turn was stopped while ${tool.name} ran. ${messageOf(thrown)}`);
  return error(thrown instanceof WaypointError ? `${thrown.message} (${thrown.code})` : `${tool.name} failed: ${messageOf(thrown)}`);
}

async function runExternal(tool: AnyRuntimeTool, input: unknown, call: ProposedCall, context: ToolContext, options: ExecuteOptions): Promise<ToolResult> {
  const session = context.session;
  const key = idempotencyKey(tool.name, call.input);
  const ask = async (reason: EffectApprovalRequest['reason'], previous: Effect | null, fallback: EffectDecision): Promise<EffectDecision> =>
    options.approveEffect ? options.approveEffect({ session, toolName: tool.name, input: call.input, idempotencyKey: key, reason, previous }) : fallback;
  const check = await options.ledger.check(session.id, key);
  if (check.status === 'succeeded') {
    const decision = await ask('already-succeeded', check.effect, 'deny');
    if (decision !== 'run') {
      return {
        output: {
          type: 'text',
          value: `Not run again: an identical ${tool.name} call already succeeded in this session (effect ${check.effect.id}). Its result was: ${JSON.stringify(check.effect.result)}`,
        },
        metadata: { effect: { key, decision: 'skipped-duplicate', previous: check.effect.id } },
      };
    }
  } else if (check.status === 'in_doubt') {
    const decision = await ask('in-doubt', check.effect, 'deny');
    if (decision !== 'run')
      return {
        ...error(
          `Not run: an identical ${tool.name} call started earlier (effect ${check.effect.id}) and never reported an outcome, so it may already have happened. Check by other means before calling it again.`,
        ),
        metadata: { effect: { key, decision: 'in-doubt' } },
      };
  }
  const policy = effectPolicyFor(session, options.effectPolicy);
  const decision: EffectDecision = policy === 'run' ? 'run' : policy === 'dry-run' ? 'dry-run' : await ask('policy', null, 'deny');
  if (decision === 'dry-run') {
    return {
      output: {
        type: 'text',
        value: `Dry run: ${tool.name} was not performed (this ${session.kind === 'main' ? 'session' : session.kind.replace('_', ' ')} runs external effects as dry runs). It would have been called with ${JSON.stringify(call.input)}.`,
      },
      metadata: { effect: { key, decision: 'dry-run' } },
    };
  }
  if (decision === 'deny') {
    return {
      ...error(
        `Not run: ${tool.name} changes things outside the workspace, and this ${session.kind === 'main' ? 'session' : session.kind.replace('_', ' ')} needs approval for that, which was not given.`,
      ),
      metadata: { effect: { key, decision: 'denied' } },
    };
  }
  const started = await options.ledger.begin({
    sessionId: session.id,
    turnId: context.turnId,
    toolName: tool.name,
    toolCallId: call.toolCallId,
    idempotencyKey: key,
    kind: 'external',
    request: call.input,
  });
  const result = await run(tool, input, context);
  if (result.output.type === 'error-text') await options.ledger.fail(started, result.output.value);
  else await options.ledger.succeed(started, result.output.value);
  return { ...result, metadata: { ...result.metadata, effect: { key, decision: 'run', effectId: started.id } } };
}

function error(value: string): ToolResult {
  return { output: { type: 'error-text', value } };
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** JSON with object keys sorted at every level, so equal inputs give equal keys. */
export function canonicalJson(value: JsonValue | undefined): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .filter((key) => value[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
    .join(',')}}`;
}

export type { ToolOutput };
