/** The sandbox environment: secrets and loader variables dropped, allow/deny/set applied. */
import picomatch from 'picomatch'
import { describe, expect, it } from 'vitest'
import { anyPattern, buildEnv, SECRET_PATTERNS } from '../../../src/profile/env.js'
import { envSchema } from '../../../src/profile/schema.js'

const policy = (input: object = {}) => envSchema.parse(input)
const base = {
  PATH: '/usr/bin',
  HOME: '/home/u',
  LANG: 'C.UTF-8',
  GITHUB_TOKEN: 'ghp_x',
  AWS_SECRET_ACCESS_KEY: 'k',
  AWS_REGION: 'eu-west-1',
  npm_config__authToken: 'n',
  MY_API_KEY: 'a',
  DB_PASSWORD: 'p',
  PGPASSWORD: 'pg',
  SLACK_WEBHOOK_URL: 'https://hooks.example/x',
  SSH_AUTH_SOCK: '/run/ssh',
  DATABASE_URL: 'postgres://u:p@h/db',
  LD_PRELOAD: '/tmp/evil.so',
  LD_LIBRARY_PATH: '/tmp',
  DYLD_INSERT_LIBRARIES: '/tmp/x',
  TOKENIZER: 'keep-me',
}

describe('buildEnv', () => {
  it('drops names that look like secrets (case-insensitive) and loader variables', () => {
    const { env, dropped } = buildEnv({ ...base }, policy(), {})
    for (const k of ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'MY_API_KEY', 'DB_PASSWORD', 'PGPASSWORD', 'SLACK_WEBHOOK_URL', 'SSH_AUTH_SOCK', 'DATABASE_URL', 'npm_config__authToken'])
      expect(env, k).not.toHaveProperty(k)
    for (const k of ['LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES']) expect(env, k).not.toHaveProperty(k)
    expect(env).toMatchObject({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', TOKENIZER: 'keep-me' })
    expect(dropped).toEqual([...dropped].sort())
    expect(dropped).toContain('GITHUB_TOKEN')
  })

  it('dropSecrets: false keeps secrets but never loader variables', () => {
    const { env } = buildEnv({ ...base }, policy({ dropSecrets: false }), {})
    expect(env.GITHUB_TOKEN).toBe('ghp_x')
    expect(env).not.toHaveProperty('LD_PRELOAD')
  })

  it('an allow list passes only matching names', () => {
    const { env, dropped } = buildEnv({ ...base }, policy({ allow: ['PATH', 'LA*'] }), {})
    expect(env).toEqual({ PATH: '/usr/bin', LANG: 'C.UTF-8' })
    expect(dropped).toContain('HOME')
  })

  it('deny globs drop on top of the secret patterns', () => {
    expect(buildEnv({ ...base }, policy({ deny: ['LAN*'] }), {}).env).not.toHaveProperty('LANG')
  })

  it('set and per-launch extras are applied last', () => {
    const { env } = buildEnv({ ...base }, policy({ set: { LANG: 'C', EDITOR: 'true' } }), { TMPDIR: '/tmp/x' })
    expect(env).toMatchObject({ LANG: 'C', EDITOR: 'true', TMPDIR: '/tmp/x' })
  })

  it('undefined values are skipped', () => {
    expect(buildEnv({ A: undefined, B: '1' }, policy(), {}).env).toEqual({ B: '1' })
  })
})

describe('anyPattern (the built-in lists as one regex)', () => {
  const names = [
    ...Object.keys(base), 'github_token', 'Token', 'TOKEN', 'MY_TOKEN_FILE', 'XTOKEN', 'SECRET', 'A_SECRET_B', 'aws_profile', 'AWS', 'KEY', 'A_KEY', 'A_KEY_B',
    'MYAPI_KEYRING', 'PASSWD_FILE', 'USER_PASSWORD_HASH', 'GIT_AUTH', 'X_AUTHOR', 'VAULT_ADDR', 'KUBECONFIG', 'kubeconfig', 'NODE_AUTH_TOKEN',
    'NPM_CONFIG__AUTH', 'NPM_CONFIG__AUTHTOKEN', '.HIDDEN_TOKEN', 'A/B_TOKEN', '*_TOKEN', '', 'PATH', 'HOME', 'SHELL', 'DYLD_X', 'LD_PRELOAD_X',
  ]
  it('answers like picomatch for the secret patterns (case-insensitive)', () => {
    const reference = picomatch(SECRET_PATTERNS, { nocase: true })
    const fast = anyPattern(SECRET_PATTERNS, { nocase: true })
    for (const n of names) expect(fast(n), n).toBe(reference(n))
  })

  it('answers like picomatch for case-sensitive lists too', () => {
    const patterns = ['LD_PRELOAD', 'LD_AUDIT', 'LD_LIBRARY_PATH', 'DYLD_*']
    const reference = picomatch(patterns)
    const fast = anyPattern(patterns)
    for (const n of [...names, 'ld_preload', 'dyld_x']) expect(fast(n), n).toBe(reference(n))
  })

  it('answers like picomatch on names built from the patterns\' pieces (the star-match path and the regex path)', () => {
    const pieces = ['', 'A', 'x', '_', '__', 'TOKEN', 'token', 'KEY', '_KEY_', 'APIKEY', 'AWS', 'SECRET', 'PASSWORD', 'AUTH', 'CONFIG', 'LD', 'DYLD', 'PRELOAD', '.', '/', 'é', ' ', '%%', '-', '\n']
    const generated = new Set<string>()
    for (const a of pieces) for (const b of pieces) for (const c of pieces) generated.add(a + b + c)
    const lists: [readonly string[], { nocase?: boolean }][] = [
      [SECRET_PATTERNS, { nocase: true }],
      [['LD_PRELOAD', 'LD_AUDIT', 'LD_LIBRARY_PATH', 'DYLD_*'], {}],
      [['*', 'A*B*C', '*_X_*_Y', 'x'], { nocase: true }],
    ]
    for (const [patterns, options] of lists) {
      const reference = picomatch(patterns as string[], options)
      const fast = anyPattern(patterns, options)
      for (const n of generated) if (fast(n) !== reference(n)) expect(fast(n), JSON.stringify(n)).toBe(reference(n))
    }
  })
})
