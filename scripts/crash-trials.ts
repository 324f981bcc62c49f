/**
 * `npx tsx scripts/crash-trials.ts [trials=2000] [lanes=2]`: the file-rewind crash test at a larger
 * count. Each trial copies a store template, starts a child applying a 6-file rewind, SIGKILLs it at
 * a random instant, reopens the store, recovers, and checks every file is wholly before or wholly
 * after and the store agrees. Prints a summary; exits 1 on the first inconsistency or failed child.
 * Run it from a clean checkout (e.g. `git archive HEAD | tar -x -C <dir>`) when others are editing
 * the working tree: each child imports the sources afresh.
 */
import { rmSync } from 'node:fs';
import { calibrate, createCrashTemplate, runTrial, type TrialOutcome } from '../test/fixtures/rewind-crash-trial.js';

const trials = Number(process.argv[2] ?? 2000);
const lanes = Number(process.argv[3] ?? 2);
const templates = await Promise.all(Array.from({ length: lanes }, () => createCrashTemplate()));
const applyMs = await calibrate(templates[0]!);
const window = Math.max(4, Math.ceil(applyMs * 1.3));
const outcomes: Record<TrialOutcome, number> = { 'before:no-journal': 0, 'before:rolled-back': 0, 'after:committed': 0 };
const started = Date.now();
let next = 0;
let failure: unknown = null;
try {
  await Promise.all(
    templates.map(async (template) => {
      while (next < trials && failure === null) {
        const trial = ++next;
        const delay = Math.random() * window;
        try {
          outcomes[await runTrial(template, delay)]++;
        } catch (error) {
          failure = new Error(`trial ${trial} (kill after ${delay.toFixed(2)} ms): ${(error as Error).message}`);
        }
        if (trial % 100 === 0) process.stderr.write(`  ${trial}/${trials} ${JSON.stringify(outcomes)}\n`);
      }
    }),
  );
} finally {
  for (const template of templates) rmSync(template.root, { recursive: true, force: true });
}
const done = Object.values(outcomes).reduce((sum, count) => sum + count, 0);
console.log(`file-rewind crash trials: ${done}/${trials} consistent in ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`kill window 0–${window} ms after "ready" (uninterrupted apply ≈ ${applyMs.toFixed(1)} ms)`);
console.log(`  killed before the journal was written (files before, no entry): ${outcomes['before:no-journal']}`);
console.log(`  killed mid-apply, rolled back by recovery (files before, no entry): ${outcomes['before:rolled-back']}`);
console.log(`  committed (files after, one file-rewind entry): ${outcomes['after:committed']}`);
if (failure) {
  console.error(`STOPPED: ${(failure as Error).message}`);
  process.exit(1);
}
