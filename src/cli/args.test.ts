import { describe, expect, it } from 'vitest';
import { integerFlag, keyValueFlags, parseArgs, type FlagSpecs } from './args.js';

const specs = {
  limit: { type: 'string', value: 'n', description: '' },
  resolve: { type: 'string', value: 'path=choice', multiple: true, description: '' },
  isolated: { type: 'optional', value: 'dir', description: '' },
  yes: { type: 'boolean', short: 'y', description: '' },
} as const satisfies FlagSpecs;

describe('parseArgs', () => {
  it('takes flags and positionals interleaved, --flag value and --flag=value, repeated flags, short booleans', () => {
    expect(parseArgs(['ses_1', '--limit', '5', 'latest', '--resolve=a=merge', '--resolve', 'b=force', '-y'], specs)).toEqual({
      positionals: ['ses_1', 'latest'],
      flags: { limit: '5', resolve: ['a=merge', 'b=force'], isolated: undefined, yes: true },
    });
  });

  it('gives an optional value only when it is inline or looks like a path', () => {
    expect(parseArgs(['--isolated', 'latest'], specs)).toMatchObject({ positionals: ['latest'], flags: { isolated: true } });
    expect(parseArgs(['--isolated', '../alt'], specs).flags.isolated).toBe('../alt');
    expect(parseArgs(['--isolated=alt'], specs).flags.isolated).toBe('alt');
  });

  it('keeps literal tokens and everything after -- as positionals', () => {
    expect(parseArgs(['ses_1', '-h'], specs, { literal: new Set(['-h']) }).positionals).toEqual(['ses_1', '-h']);
    expect(parseArgs(['--', '--limit'], specs).positionals).toEqual(['--limit']);
  });

  it('refuses unknown options, missing values, values for booleans and repeated single flags as usage errors', () => {
    for (const argv of [['--hard'], ['-x'], ['--limit'], ['--limit', '--yes'], ['--yes=no'], ['--limit', '1', '--limit', '2'], ['--limit=']]) {
      expect(() => parseArgs(argv, specs), argv.join(' ')).toThrow(expect.objectContaining({ code: 'USAGE', exitCode: 2 }));
    }
  });
});

describe('flag values', () => {
  it('integerFlag: whole numbers at or above the minimum', () => {
    expect(integerFlag('limit', undefined, 50)).toBe(50);
    expect(integerFlag('limit', '7', 50)).toBe(7);
    for (const value of ['0', '-1', '1.5', 'ten']) expect(() => integerFlag('limit', value, 50)).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('keyValueFlags: path=choice, split at the last "="', () => {
    expect(keyValueFlags('resolve', ['a=b.txt=merge'], ['merge', 'force'])).toEqual([{ key: 'a=b.txt', choice: 'merge' }]);
    for (const value of ['README.md', '=merge', 'README.md=keep'])
      expect(() => keyValueFlags('resolve', [value], ['merge', 'force'])).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});
