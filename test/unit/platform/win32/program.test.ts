import { describe, expect, it } from 'vitest'
import { UnsupportedError } from '../../../../src/errors.js'
import { resolveProgram } from '../../../../src/platform/win32/program.js'
import { checkedStateDir, stateDir } from '../../../../src/platform/win32/state.js'
import { LoadError } from '../../../../src/errors.js'

const files = new Set(['C:\\bin\\git.exe', 'C:\\tools\\npm.cmd', 'C:\\work\\git.exe', 'C:\\work\\build\\run.exe', 'C:\\bin\\tool'].map((f) => f.toLowerCase()))
// NTFS names are case-insensitive to Win32: git + .EXE finds git.exe.
const isFile = (p: string) => files.has(p.toLowerCase())

describe('finding the program a Windows command runs', () => {
  const env = { Path: 'C:\\bin;relative;C:\\tools', PATHEXT: '.COM;.EXE;.BAT;.CMD' }

  it('searches the command\'s PATH (any case of the name), never the current directory', () => {
    // C:\work\git.exe is in the cwd: a planted file there must not win.
    expect(resolveProgram('git', { cwd: 'C:\\work', env, isFile })).toMatch(/^C:\\bin\\git\.exe$/i)
  })

  it('takes an explicit path relative to the cwd', () => {
    expect(resolveProgram('build\\run', { cwd: 'C:\\work', env, isFile })).toMatch(/^C:\\work\\build\\run\.exe$/i)
    expect(resolveProgram('.\\git.exe', { cwd: 'C:\\work', env, isFile })).toBe('C:\\work\\git.exe')
  })

  it('skips relative PATH entries and answers undefined when nothing matches', () => {
    expect(resolveProgram('nothing', { cwd: 'C:\\work', env, isFile })).toBeUndefined()
  })

  it('refuses a batch file it would run', () => {
    expect(() => resolveProgram('npm', { cwd: 'C:\\work', env, isFile })).toThrow(UnsupportedError)
  })

  it('a name with an extension is tried as given first', () => {
    expect(resolveProgram('tool', { cwd: 'C:\\', env: { PATH: 'C:\\bin' }, isFile })).toBeUndefined() // no extension: PATHEXT only
    expect(resolveProgram('git.exe', { cwd: 'C:\\', env: { PATH: 'C:\\bin' }, isFile })).toBe('C:\\bin\\git.exe')
  })
})

describe("cordon's state directory on Windows", () => {
  it('is %LOCALAPPDATA%\\cordon, else the profile\'s AppData\\Local\\cordon', () => {
    expect(stateDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Local\\cordon')
    expect(stateDir({}, 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Local\\cordon')
  })

  it('is refused inside a write root (the command could forge a journal there)', () => {
    expect(() => checkedStateDir(['C:\\Users\\u'], { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'C:\\Users\\u')).toThrow(LoadError)
    expect(checkedStateDir(['C:\\work'], { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Local\\cordon')
  })
})
