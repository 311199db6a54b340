/**
 * The platform seam: one PlatformBackend per OS behind src/platform/index.ts,
 * an unsupported platform refused with a typed error (never at import), an
 * opaque prepared plan, and the facts upper layers read from the report
 * instead of one backend's mount plan.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { UnsupportedError } from '../../../src/errors.js'
import { backendFor } from '../../../src/platform/index.js'
import { createSandbox } from '../../../src/index.js'
import { resolvePolicy } from '../../../src/profile/resolve.js'
import { loadProfile } from '../../../src/profile/profiles.js'
import { thrown } from '../../helpers/errors.js'
import { distIndex, repoRoot } from '../../helpers/paths.js'
import { namespacesMissing } from '../../helpers/modes.js'
import { self } from '../../helpers/identity.js'
import { itWhere } from '../../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'

const tmp = (): string => tempDir('cordon-seam-')
afterAll(removeTempDirs)

describe('choosing a backend', () => {
  it.each(['freebsd', 'aix'] as const)('%s has no backend: UnsupportedError naming the platform', (platform) => {
    const e = thrown(UnsupportedError, () => backendFor(platform))
    expect(e).toMatchObject({ code: 'E_UNSUPPORTED', feature: 'sandbox backend', required: 'linux or darwin or win32', found: platform })
  })

  it('win32 gets the Windows backend (made without loading anything)', () => {
    expect(backendFor('win32').platform).toBe('win32')
  })

  it('darwin gets the Seatbelt backend, made once', () => {
    expect(backendFor('darwin')).toBe(backendFor('darwin'))
    expect(backendFor('darwin').platform).toBe('darwin')
  })

  it('linux gets one backend object, made once', () => {
    expect(backendFor('linux')).toBe(backendFor('linux'))
    expect(backendFor('linux').platform).toBe('linux')
  })

  it('on an unsupported platform the package imports, createSandbox throws E_UNSUPPORTED and doctor reports it', () => {
    const script = `
      Object.defineProperty(process, 'platform', { value: 'freebsd' })
      const m = await import(${JSON.stringify(new URL(`file://${distIndex}`).href)})
      let err
      try { m.createSandbox() } catch (e) { err = { name: e.name, code: e.code, isUnsupported: e instanceof m.UnsupportedError } }
      const d = m.doctor()
      console.log(JSON.stringify({ err, doctor: { platform: d.platform, ok: d.checks.every((c) => c.ok), auto: d.auto.mode } }))
    `
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({
      err: { name: 'UnsupportedError', code: 'E_UNSUPPORTED', isUnsupported: true },
      doctor: { platform: 'freebsd', ok: false, auto: 'none' },
    })
  })
})

describe('the prepared plan is opaque', () => {
  const req = () => {
    const cwd = tmp()
    const policy = resolvePolicy({ profile: loadProfile('workspace-write'), profileName: 'workspace-write', cwd, tmpdir: tmp(), baseEnv: {}, cache: new Map() })
    return { policy, mode: 'landlock' as const, explicit: new Set<string>() }
  }

  it('a handle the backend did not make (or already released) is refused', () => {
    const backend = backendFor('linux')
    const forged = { enforcement: backend.report(req()) }
    const io = { argv: ['/bin/true'], env: [], compat: 'best-effort' as const, stdin: 'ignore' as const, stdout: 'pipe' as const, stderr: 'pipe' as const }
    expect(() => backend.start(forged, io)).toThrow(TypeError)
    const real = backend.prepare(req())
    backend.release(real)
    expect(() => backend.start(real, io)).toThrow(TypeError)
    expect(() => backend.release(real)).not.toThrow()
  })

  it('the handle exposes its enforcement report and nothing of the Linux plan', () => {
    const backend = backendFor('linux')
    const h = backend.prepare(req())
    try {
      expect(Object.keys(h)).toEqual(['enforcement'])
      expect(h.enforcement.platform.os).toBe('linux')
    } finally {
      backend.release(h)
    }
  })
})

describe('facts the orchestrator reads from the report', () => {
  it('Landlock mode: nothing private, nothing a widening may not cover', () => {
    const sb = createSandbox({ cwd: tmp(), mode: 'landlock' })
    const e = sb.report()
    sb.close()
    expect(e.filesystem.privateDirs).toEqual([])
    expect(e.widening).toEqual({ writeExcluded: [] })
  })

  itWhere(namespacesMissing(self()), 'namespace mode: private /tmp and /var/tmp unless a write root covers one; bwrap kept out of widenings', () => {
    const sb = createSandbox({ cwd: tmp(), mode: 'namespaces', compat: 'best-effort' })
    const e = sb.report()
    sb.close()
    expect(e.mode).toBe('namespaces')
    expect(e.filesystem.privateDirs).toEqual(['/tmp', '/var/tmp'])
    expect(e.widening.modeForExcluded).toBe('landlock')
    expect(e.widening.writeExcluded).toHaveLength(1)
    expect(e.widening.writeExcluded[0]).toMatch(/\/bwrap$/)
    const wide = createSandbox({ cwd: tmp(), mode: 'namespaces', compat: 'best-effort', write: ['/var/tmp'] })
    const w = wide.report()
    wide.close()
    expect(w.filesystem.privateDirs).toEqual(['/tmp'])
  })
})

describe('layering', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f)
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : []
    })
  const src = join(repoRoot, 'src')
  const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map((m) => join(file, '..', m[1]!))

  it('only src/platform/index.ts reaches into an OS backend; the platform layer never imports the sandbox layer', () => {
    const offenders: string[] = []
    for (const f of files(src)) {
      const rel = relative(src, f)
      for (const target of imports(f).map((t) => relative(src, t))) {
        const intoBackend = /^platform\/(linux|darwin|win32)\//.test(target) && !rel.startsWith(target.split('/').slice(0, 2).join('/') + '/') && rel !== 'platform/index.ts'
        const upward = rel.startsWith('platform/') && /^(sandbox|orchestrator|cli|tools)\//.test(target)
        if (intoBackend || upward) offenders.push(`${rel} → ${target}`)
      }
    }
    expect(offenders).toEqual([])
  })
})
