import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../runtime-errors.js';
import { resolveModel } from './resolve-model.js';
import { ScriptedModel } from './scripted-model.js';

const refused = (spec: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    resolveModel(spec, { env });
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error(`${spec} was accepted`);
};

describe('resolveModel', () => {
  it('refuses a missing key, naming the variable to set', () => {
    const anthropic = refused('anthropic:claude-sonnet-4-5');
    expect(anthropic.code).toBe('MODEL_API_KEY_MISSING');
    expect(anthropic.message).toContain('ANTHROPIC_API_KEY');
    expect(anthropic.exitCode).toBe(3);
    const openai = refused('openai-compatible:gpt-4o@https://api.example.com/v1');
    expect(openai.code).toBe('MODEL_API_KEY_MISSING');
    expect(openai.message).toContain('WAYPOINT_OPENAI_API_KEY');
  });

  it('lets a server on this machine run without a key, and takes keys and URLs from the environment', () => {
    expect(resolveModel('openai-compatible:qwen2.5@http://localhost:11434/v1', { env: {} })).toMatchObject({
      provider: 'openai-compatible',
      modelId: 'qwen2.5',
    });
    expect(resolveModel('openai-compatible:gpt-4o', { env: { WAYPOINT_OPENAI_BASE_URL: 'https://api.example.com/v1', OPENAI_API_KEY: 'k' } }).label).toBe(
      'openai-compatible:gpt-4o@https://api.example.com/v1',
    );
    expect(resolveModel('anthropic:claude-x', { env: { ANTHROPIC_API_KEY: 'k' } }).model.provider).toContain('anthropic');
  });

  it('refuses a missing base URL and malformed strings', () => {
    expect(refused('openai-compatible:gpt-4o', { OPENAI_API_KEY: 'k' }).code).toBe('MODEL_BASE_URL_MISSING');
    expect(refused('gpt-4o').code).toBe('MODEL_STRING_INVALID');
    expect(refused('mystery:model').message).toContain('openai-compatible:<model>@<baseURL>');
    expect(refused('openai-compatible:@http://localhost:1/v1').code).toBe('MODEL_STRING_INVALID');
  });

  it('loads a scripted model file, and refuses an invalid one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'waypoint-script-'));
    writeFileSync(join(dir, 'ok.json'), JSON.stringify({ steps: [{ text: 'hi' }] }));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ steps: [{ toolCalls: [{ input: {} }] }] }));
    const resolved = resolveModel('scripted:ok.json', { cwd: dir });
    expect(resolved.model).toBeInstanceOf(ScriptedModel);
    expect((resolved.model as ScriptedModel).remaining).toBe(1);
    expect(() => resolveModel('scripted:bad.json', { cwd: dir })).toThrow(expect.objectContaining({ code: 'SCRIPT_INVALID' }));
    expect(() => resolveModel('scripted:missing.json', { cwd: dir })).toThrow(expect.objectContaining({ code: 'SCRIPT_INVALID' }));
  });
});
