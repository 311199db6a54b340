/**
 * The sandbox environment: built from the caller's environment by the
 * profile's env policy. By default everything passes except names that look
 * like secrets and loader-injection variables.
 */
import picomatch from 'picomatch'
import type { Profile } from './schema.js'

/** Names that look like credentials. Matched case-insensitively. */
export const SECRET_PATTERNS = [
  '*_TOKEN',
  '*_TOKEN_*',
  '*TOKEN',
  '*_SECRET*',
  '*SECRET',
  '*_KEY',
  '*_KEY_*',
  '*_APIKEY',
  '*API_KEY*',
  '*_PASSWORD*',
  '*PASSWD*',
  '*_CREDENTIALS*',
  '*_AUTH',
  'AWS_*',
  'AZURE_*',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GCLOUD_*',
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'GNUPGHOME',
  'KUBECONFIG',
  'DOCKER_AUTH_CONFIG',
  'NPM_CONFIG__AUTH*',
  'NODE_AUTH_TOKEN',
  'VAULT_*',
  'DATABASE_URL',
]

/** Always dropped: they make every dynamically linked program load attacker-chosen code. */
const LOADER_PATTERNS = ['LD_PRELOAD', 'LD_AUDIT', 'LD_LIBRARY_PATH', 'DYLD_*']

export interface EnvResult {
  env: Record<string, string>
  dropped: string[]
}

export function buildEnv(base: NodeJS.ProcessEnv, policy: Profile['env'], extra: Record<string, string>): EnvResult {
  const secret = picomatch(SECRET_PATTERNS, { nocase: true })
  const loader = picomatch(LOADER_PATTERNS)
  const denied = picomatch(policy.deny.length ? policy.deny : ['\0'])
  const allowed = policy.allow ? picomatch(policy.allow) : () => true
  const env: Record<string, string> = {}
  const dropped: string[] = []
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue
    const drop = !allowed(name) || denied(name) || loader(name) || (policy.dropSecrets && secret(name))
    if (drop) dropped.push(name)
    else env[name] = value
  }
  Object.assign(env, policy.set, extra)
  return { env, dropped: dropped.sort() }
}
