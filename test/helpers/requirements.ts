/**
 * The one way a test that cannot run here says so. A group or test that
 * lacks something (host.ts `Missing`) is skipped with the reason in its
 * name, and the reason — which names the fix — is printed once per file.
 *
 * CI installs every requirement and must run every test: there
 * `CORDON_TEST_REQUIRE=all` (or a comma-separated list of requirement
 * names) turns the skip of a group that lacks a required feature into a
 * failing test carrying the same reason. What no install provides (the
 * caller's identity, the kernel) always skips.
 */
import { describe, inject, it, type TestContext } from 'vitest'
import { REQUIREMENTS, requiredByEnv, type HostFacts, type Missing } from './host.js'

export type { Missing, Requirement } from './host.js'

const required = requiredByEnv()

/** The host facts the globalSetup found. */
export function host(): HostFacts {
  return inject('cordonHost')
}

/** True when `missing` must fail rather than skip here. */
export function isRequired(missing: Missing): boolean {
  return missing.requirement !== undefined && required.has(missing.requirement)
}

/** The first thing missing, if any. */
export function firstMissing(...list: (Missing | undefined)[]): Missing | undefined {
  return list.find((m) => m !== undefined)
}

/** Missing, with nothing to install, unless `condition` holds: for what the caller's identity or the kernel decides. */
export function unless(condition: boolean, reason: string): Missing | undefined {
  return condition ? undefined : { reason }
}

const printed = new Set<string>()

function announce(missing: Missing): void {
  const line = isRequired(missing)
    ? `[cordon tests] FAILING, not skipping (CORDON_TEST_REQUIRE=${process.env.CORDON_TEST_REQUIRE}): ${missing.reason}`
    : `[cordon tests] skipped: ${missing.reason}`
  if (printed.has(line)) return
  printed.add(line)
  if (isRequired(missing)) console.error(line)
  else console.warn(line)
}

/** The error a required but missing feature fails with. */
export function requirementError(missing: Missing): Error {
  const what = missing.requirement ? REQUIREMENTS[missing.requirement] : 'this host'
  return new Error(`${missing.reason} (CORDON_TEST_REQUIRE=${process.env.CORDON_TEST_REQUIRE} requires ${what}: a missing requirement fails instead of skipping)`)
}

const skippedName = (name: string, missing: Missing) => `${name} (skipped: ${missing.reason})`

/**
 * `describe(name, body)` when nothing is missing; otherwise skipped with the
 * reason (printed), or, when the requirement is required here, one failing
 * test in place of the group (its body is not even collected).
 */
export function describeWhere(missing: Missing | undefined, name: string, body: () => void, { concurrent = false } = {}): void {
  const suite = concurrent ? describe.concurrent : describe
  if (!missing) return void suite(name, body)
  announce(missing)
  if (isRequired(missing)) {
    return void describe(name, () => {
      it(`requires ${REQUIREMENTS[missing.requirement!]}`, () => {
        throw requirementError(missing)
      })
    })
  }
  suite.skip(skippedName(name, missing), body)
}

/** `it(name, fn)` when nothing is missing; otherwise as describeWhere. */
export function itWhere(missing: Missing | undefined, name: string, fn: (ctx: TestContext) => unknown, timeout?: number): void {
  if (!missing) return void it(name, fn, timeout)
  announce(missing)
  if (isRequired(missing)) {
    return void it(name, () => {
      throw requirementError(missing)
    })
  }
  // Skipped as it starts, with the reason as vitest's skip note (the body never runs).
  it(skippedName(name, missing), (ctx) => ctx.skip(missing.reason), timeout)
}

/** Skip the running test (found out only while it runs), printing why; a required feature fails it instead. */
export function skipNow(ctx: TestContext, missing: Missing): never {
  announce(missing)
  if (isRequired(missing)) throw requirementError(missing)
  return ctx.skip(missing.reason)
}
