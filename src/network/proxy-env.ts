/**
 * The environment that points a sandboxed command's tools at the proxy:
 * the conventional variables (curl, wget, Python, Go; Node's built-in
 * clients with `NODE_USE_ENV_PROXY`, where the Node version knows it),
 * and the tool-specific ones that do not read them (npm, yarn, pip, git). `NO_PROXY` is cleared: a name exempted from the
 * proxy would be a direct connection, which the sandbox refuses anyway —
 * clearing it makes the failure a proxy decision with a reason instead.
 */

import { PROXY_USER } from './proxy/token.js'

/** Names a tool would honour to bypass the proxy. */
const BYPASS = ['NO_PROXY', 'no_proxy']

export function proxyEnv(port: number, env: Readonly<Record<string, string>>, token?: string): Record<string, string> {
  // The credential in the URL: curl, npm, pip, git, Node and Go send it to the proxy by themselves.
  const auth = token ? `${PROXY_USER}:${token}@` : ''
  const http = `http://${auth}127.0.0.1:${port}`
  // socks5h: the proxy resolves the name (the sandbox has no DNS).
  const socks = `socks5h://${auth}127.0.0.1:${port}`
  const out: Record<string, string> = { ...env }
  for (const name of BYPASS) delete out[name]
  Object.assign(out, {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    ALL_PROXY: socks,
    http_proxy: http,
    https_proxy: http,
    all_proxy: socks,
    npm_config_proxy: http,
    npm_config_https_proxy: http,
    YARN_HTTP_PROXY: http,
    YARN_HTTPS_PROXY: http,
    PIP_PROXY: http,
    NODE_USE_ENV_PROXY: '1',
  })
  return { ...out, ...gitProxy(out, http) }
}

/** git's http.proxy through GIT_CONFIG_COUNT/KEY_n/VALUE_n, after any the environment already sets. */
function gitProxy(env: Readonly<Record<string, string>>, http: string): Record<string, string> {
  const raw = env.GIT_CONFIG_COUNT
  const n = raw !== undefined && /^\d{1,4}$/.test(raw) ? Number(raw) : 0
  return { GIT_CONFIG_COUNT: String(n + 1), [`GIT_CONFIG_KEY_${n}`]: 'http.proxy', [`GIT_CONFIG_VALUE_${n}`]: http }
}
