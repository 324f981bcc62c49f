// Your own AI SDK loop, with every file change its tools make checkpointed by Waypoint, then undone.
//
// Run: npx tsx examples/checkpointed-ai-sdk-tools.ts [directory]
// (a fresh temporary directory by default; no network: the model is the AI SDK's own mock.)
//
// Two tools that know nothing about Waypoint: `saveNotes` writes with node:fs, `build` spawns a
// process that writes a file. The model calls both in one step (the SDK runs them in parallel).
// `checkpointTools` scans the workspace around each call, so both changes become checkpoints of
// the turn; `rollbackTurn` then puts the files back as they were before the turn.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
// In your project: import { checkpointTools, openWaypoint, startTurn } from 'waypoint';
import { checkpointTools, openWaypoint, startTurn } from '../src/index.js';

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'waypoint-ai-sdk-'));
const project = join(dir, 'project');
mkdirSync(project, { recursive: true });
writeFileSync(join(project, 'notes.md'), '# Notes\n\nfirst draft\n');

const waypoint = await openWaypoint({ path: join(dir, 'store', 'waypoint.db') });
const session = await waypoint.history.createSession({ title: 'AI SDK loop', workdir: project });

// Plain AI SDK tools: nothing here mentions Waypoint.
const tools = {
  saveNotes: tool({
    description: 'Replace notes.md',
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      writeFileSync(join(project, 'notes.md'), text);
      return 'saved';
    },
  }),
  build: tool({
    description: 'Build the report',
    inputSchema: z.object({}),
    execute: async () => {
      const script = "require('fs').mkdirSync('out', { recursive: true }); require('fs').writeFileSync('out/report.txt', 'built\\n')";
      await promisify(execFile)(process.execPath, ['-e', script], { cwd: project });
      return 'built out/report.txt';
    },
  }),
};

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const model = new MockLanguageModelV3({
  doGenerate: [
    {
      content: [
        { type: 'tool-call', toolCallId: 'call_notes', toolName: 'saveNotes', input: JSON.stringify({ text: '# Notes\n\nrewritten by the agent\n' }) },
        { type: 'tool-call', toolCallId: 'call_build', toolName: 'build', input: '{}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    },
    { content: [{ type: 'text', text: 'Rewrote the notes and built the report.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
  ],
});

const prompt = 'Rewrite the notes, then build the report';
const turn = await startTurn({ waypoint, sessionId: session.id, input: prompt });
const result = await generateText({ model, prompt, tools: checkpointTools(tools, { waypoint, sessionId: session.id }), stopWhen: stepCountIs(3) });
const ended = await turn.end({ messages: result.response.messages });

console.log(`model: ${result.text}`);
console.log(`turn ${ended.turn.id}: ${ended.summary.files.map((file) => `${file.op} ${file.displayPath}`).join(', ')}`);
console.log(`notes.md after the turn: ${JSON.stringify(readFileSync(join(project, 'notes.md'), 'utf8'))}`);

const undo = await waypoint.files.rollbackTurn(turn.turnId);
console.log(`undo: ${undo.ok ? 'ok' : 'incomplete'}, ${undo.files.length} files put back`);
console.log(`notes.md after undo: ${JSON.stringify(readFileSync(join(project, 'notes.md'), 'utf8'))}`);
console.log(`out/report.txt after undo: ${existsSync(join(project, 'out', 'report.txt')) ? 'still there' : 'gone'}`);
await waypoint.close();
