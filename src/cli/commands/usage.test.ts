import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOperationsFixture, type OperationsFixture } from '../../operations/fixtures/operations-fixture.js';
import { storeUsage } from '../../operations/index.js';
import { renderUsage } from './usage.js';

let fx: OperationsFixture;

beforeEach(async () => {
  fx = await createOperationsFixture();
  await fx.turn('Write', { 'lock.json': `${'"dep": "1.0.0",\n'.repeat(3000)}` });
  await fx.turn('Change', { 'lock.json': `"dep": "1.0.1",\n${'"dep": "1.0.0",\n'.repeat(2999)}` });
});
afterEach(() => fx.cleanup());

describe('waypoint usage (text)', () => {
  it('shows blobs by encoding and the database by table and index; new checkpoints store no patch, so none is noted', async () => {
    const text = renderUsage(await storeUsage({ waypoint: fx.waypoint })).join('\n');
    expect(text).toMatch(/compressed +1 /);
    expect(text).toMatch(/delta +1 /);
    expect(text).toMatch(/Database: rows [\d.]+ (B|KiB|MiB), indexes [\d.]+ (B|KiB|MiB)/);
    expect(text).toMatch(/^ +checkpoints +table +[\d.]+ (B|KiB|MiB)$/m);
    expect(text).not.toContain('(patches');
  });
});
