import { defineConfig } from 'vitest/config'

// Native code may crash a worker, and escape probes spawn real processes:
// each test file runs in its own forked process. The globalSetup finds what
// the host offers (tests that need what it lacks skip, saying why) and gives
// the run its own temp root, checked for leftovers when the run ends.
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/helpers/global-setup.ts'],
    setupFiles: ['./test/helpers/worker-exit.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, tsconfig: './tsconfig.json', include: ['test/**/*.test-d.ts'] },
  },
})
