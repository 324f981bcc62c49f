import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Store tests open real SQLite files and spawn real processes; give them room on a shared 2-core box.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
