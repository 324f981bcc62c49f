import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { calibrate, createCrashTemplate, runTrial, type CrashTemplate, type TrialOutcome } from '../fixtures/rewind-crash-trial.js';

// All or nothing: a child applying an 8-path rewind (modify, create, delete, move, a file edited twice, a
// directory that gives way to the file it replaced) is
// SIGKILLed at random instants; after reopening and recovering, every file is wholly before or wholly
// after, and the store agrees (rolled back or no journal ⇔ before and no entry; committed ⇔ after and
// the entry). Two lanes with their own template run side by side to keep the suite's wall time down.
const TRIALS = 200;
const LANES = 2;

describe('file rewind crash safety (SIGKILL at random instants)', () => {
  const templates: CrashTemplate[] = [];
  afterAll(() => {
    for (const template of templates) rmSync(template.root, { recursive: true, force: true });
  });

  it(`${TRIALS} trials: every file wholly before or wholly after, and the store agrees`, async () => {
    for (let lane = 0; lane < LANES; lane++) templates.push(await createCrashTemplate());
    const applyMs = await calibrate(templates[0]!);
    const window = Math.max(4, Math.ceil(applyMs * 1.3));
    const outcomes: Record<TrialOutcome, number> = { 'before:no-journal': 0, 'before:rolled-back': 0, 'after:committed': 0 };
    let next = 0;
    await Promise.all(
      templates.map(async (template) => {
        while (next < TRIALS) {
          next++;
          outcomes[await runTrial(template, Math.random() * window)]++;
        }
      }),
    );
    console.log(`crash trials: ${TRIALS}, kill window 0–${window} ms (apply ≈ ${applyMs.toFixed(1)} ms):`, outcomes);
    expect(Object.values(outcomes).reduce((sum, count) => sum + count, 0)).toBe(TRIALS);
    // Kills must land inside the apply often enough for the test to mean something.
    expect(outcomes['before:rolled-back']).toBeGreaterThan(0);
  }, 900_000);
});
