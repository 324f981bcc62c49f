import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Store tests open real SQLite files and spawn real processes; give them room on a shared 2-core box.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'engine',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/cli/**', 'test/package/**', 'test/integrations/**', 'test/web/**'],
        },
      },
      {
        // The CLI suite runs the built `bin/waypoint.js` as a user would, and the package suite installs
        // the packed tarball: dist/ is built once per run, and only when one of their tests is selected.
        extends: true,
        test: {
          name: 'cli',
          include: ['test/cli/**/*.test.ts', 'test/package/**/*.test.ts', 'test/integrations/**/*.test.ts', 'test/web/**/*.test.ts'],
          globalSetup: ['test/cli/build-cli.ts'],
        },
      },
    ],
  },
});
