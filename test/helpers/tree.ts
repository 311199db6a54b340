/**
 * A temp tree per test group (under test/.tmp), owned by the identity that uses it:
 *
 *   base/home/.ssh/id_rsa      built-in secret (HOME points at base/home)
 *   base/home/secret/key.txt   an explicit denyRead path
 *   base/work/                 the sandbox cwd, a write root
 *   base/outside/              readable, never writable from the sandbox
 */
import { chownSync, lchownSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Identity } from './identity.js'
import { makeTestTmpDir } from './paths.js'

export const SECRET_TEXT = 'DENIED-SECRET-4f1c'
export const SSH_TEXT = 'SSH-PRIVATE-KEY-9b2e'

export interface Tree {
  base: string
  home: string
  work: string
  outside: string
  secretDir: string
  secretFile: string
  sshKey: string
  /** Create a file (and its parents) owned by the identity; returns its path. */
  file(rel: string, content?: string): string
  /** Create a directory owned by the identity; returns its path. */
  dir(rel: string): string
  cleanup(): void
}

function chownTree(p: string, uid: number, gid: number): void {
  const st = lstatSync(p)
  if (st.isSymbolicLink()) return lchownSync(p, uid, gid) // never follow a link the sandbox planted
  chownSync(p, uid, gid)
  if (st.isDirectory()) for (const e of readdirSync(p)) chownTree(join(p, e), uid, gid)
}

export function makeTree(identity: Identity, label: string): Tree {
  const base = makeTestTmpDir(`escape-${label}-`)
  const own = process.getuid?.() === 0 && identity.uid !== 0
  const chown = (p: string) => own && chownTree(p, identity.uid, identity.gid)
  // Chown only what was just created: a file the test made root-owned on
  // purpose (a setuid binary) must stay so.
  const dir = (rel: string) => {
    const p = join(base, rel)
    const created = mkdirSync(p, { recursive: true })
    if (created) chown(created)
    return p
  }
  const file = (rel: string, content = `${rel}\n`) => {
    const p = join(base, rel)
    const created = mkdirSync(dirname(p), { recursive: true })
    writeFileSync(p, content, { mode: 0o644 })
    chown(created ?? p)
    return p
  }
  chown(base)
  const tree: Tree = {
    base,
    home: dir('home'),
    work: dir('work'),
    outside: dir('outside'),
    secretDir: dir('home/secret'),
    secretFile: file('home/secret/key.txt', `${SECRET_TEXT}\n`),
    sshKey: file('home/.ssh/id_rsa', `${SSH_TEXT}\n`),
    file,
    dir,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  }
  return tree
}
