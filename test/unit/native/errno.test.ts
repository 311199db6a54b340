/**
 * errno and signal names are the ones Node itself reports: a number with
 * aliases (6: SIGABRT/SIGIOT, 29: SIGIO/SIGPOLL, 11: EAGAIN/EWOULDBLOCK,
 * 95: ENOTSUP/EOPNOTSUPP) gets its usual name, not the last alias listed.
 */
import { constants } from 'node:os'
import { getSystemErrorName } from 'node:util'
import { describe, expect, it } from 'vitest'
import { errnoName, signalName } from '../../../src/native/errno.js'
import { nodeSignalNames } from '../../helpers/signals.js'

describe('signalName', () => {
  it("names every signal that can end a process as node:child_process does", () => {
    const node = nodeSignalNames()
    expect(node.get(constants.signals.SIGABRT)).toBe('SIGABRT') // the harness itself works
    expect(node.size).toBeGreaterThan(20)
    for (const [n, name] of node) expect({ n, name: signalName(n) }).toEqual({ n, name })
  })

  it('gives the usual name of a number with aliases', () => {
    expect(signalName(6)).toBe('SIGABRT')
    expect(signalName(29)).toBe('SIGIO')
    expect(signalName(9)).toBe('SIGKILL')
  })

  it('has no name for a number the platform has none for (real-time signals)', () => {
    expect(signalName(40)).toBeUndefined()
  })
})

describe('errnoName', () => {
  it("names every errno libuv knows as Node's errors do (err.code)", () => {
    let named = 0
    for (const n of new Set(Object.values(constants.errno))) {
      const node = getSystemErrorName(-n)
      if (node.startsWith('Unknown system error')) continue // not one of libuv's: see below
      expect({ n, name: errnoName(n) }).toEqual({ n, name: node })
      named++
    }
    expect(named).toBeGreaterThan(50)
    expect(errnoName(11)).toBe('EAGAIN')
    expect(errnoName(95)).toBe('ENOTSUP')
  })

  it("names an errno libuv does not know (Node says 'Unknown system error') by os.constants", () => {
    expect(getSystemErrorName(-constants.errno.ECHILD)).toMatch(/^Unknown system error/)
    expect(errnoName(constants.errno.ECHILD)).toBe('ECHILD')
    expect(errnoName(constants.errno.EDEADLK)).toBe('EDEADLK')
  })

  it('falls back to E<n> for a number with no name', () => {
    expect(errnoName(0)).toBe('E0')
    expect(errnoName(4000)).toBe('E4000')
  })
})
