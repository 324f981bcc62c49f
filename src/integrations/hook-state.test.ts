import { existsSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyHookState, loadHookState, saveHookState } from './hook-state.js';

describe('hook state file', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-hook-state-'));
    path = join(dir, 'claude', 'session.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const state = (offset: number) => ({ ...emptyHookState('agent-1'), transcriptOffset: offset });

  it('each save replaces the last whole, leaving the state file alone', () => {
    saveHookState(path, state(10));
    saveHookState(path, state(20));
    expect(loadHookState(path, 'agent-1').transcriptOffset).toBe(20);
    expect(readdirSync(join(dir, 'claude'))).toEqual(['session.json']);
  });

  it('a save stopped between removing the old file and moving the new one in: the new state is read', () => {
    saveHookState(path, state(10));
    // What such a save leaves: the new state written whole beside the path, the old file gone.
    writeFileSync(`${path}.next`, JSON.stringify(state(30)));
    unlinkSync(path);
    expect(loadHookState(path, 'agent-1').transcriptOffset).toBe(30);
    saveHookState(path, state(40));
    expect(loadHookState(path, 'agent-1').transcriptOffset).toBe(40);
    expect(existsSync(`${path}.next`)).toBe(false);
  });

  it('a save stopped before removing the old file: the old state is read; another session’s or a broken file starts over', () => {
    saveHookState(path, state(10));
    writeFileSync(`${path}.next`, JSON.stringify(state(30)));
    expect(loadHookState(path, 'agent-1').transcriptOffset).toBe(10);
    expect(loadHookState(path, 'agent-2')).toEqual(emptyHookState('agent-2'));
    writeFileSync(path, '{"version": 2, "agentSess');
    expect(loadHookState(path, 'agent-1')).toEqual(emptyHookState('agent-1'));
  });
});
