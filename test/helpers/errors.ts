/** Catching the typed errors the SDK throws, for assertions on their fields. */
import { expect } from 'vitest'

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E

const expected = (type: ErrorClass<Error>) => `expected ${/^[AEIOU]/.test(type.name) ? 'an' : 'a'} ${type.name}`

/** The error `fn` throws, asserted to be a `type`; fails the test if `fn` returns. */
export function thrown<E extends Error>(type: ErrorClass<E>, fn: () => unknown): E {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(type)
    return e as E
  }
  throw new Error(expected(type))
}

/** The error `fn` throws or rejects with, asserted to be a `type`; fails the test if it settles. */
export async function rejected<E extends Error>(type: ErrorClass<E>, fn: () => unknown): Promise<E> {
  try {
    await fn()
  } catch (e) {
    expect(e).toBeInstanceOf(type)
    return e as E
  }
  throw new Error(expected(type))
}
