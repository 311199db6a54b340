/**
 * The credential of a sandbox's proxy port (credential.ts checks it): 18
 * random bytes, base64url. Apart from credential.ts so that making a sandbox
 * loads neither node:crypto nor the proxy (the CLI's start-up).
 */
export function newProxyToken(): string {
  // Web Crypto's global: the same CSPRNG as node:crypto's randomBytes.
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(18))).toString('base64url')
}

export const PROXY_USER = 'cordon'
