/**
 * Which program an argv[0] stands for when applying heuristics and shell
 * unwrapping. A bare name is itself. An absolute path stands for its
 * basename only when `host_executable` lists it, or — when no
 * `host_executable` names it — when it lives in a root-owned system
 * directory. A relative path (`./git`, `bin/git`) stands for nothing: it is
 * whatever file the command's author put there.
 */
import type { Policy } from '../types.js'

/** Directories package managers own; an agent cannot plant a binary there. */
const SYSTEM_DIRS = new Set(['/bin', '/usr/bin', '/sbin', '/usr/sbin'])

export function basenameOf(program: string): string {
  // Most names have no slash, and includes() is several times cheaper than V8's lastIndexOf().
  return program.includes('/') ? program.slice(program.lastIndexOf('/') + 1) : program
}

/** The trusted name of `program`, or undefined when it must not inherit a name's reputation. */
export function trustedProgramName(policy: Policy, program: string): string | undefined {
  if (!program.includes('/')) return program
  if (!program.startsWith('/')) return undefined
  const slash = program.lastIndexOf('/')
  const base = program.slice(slash + 1)
  if (base === '') return undefined
  const listed = policy.hostExecutables.get(base)
  if (listed) return listed.includes(program) ? base : undefined
  return SYSTEM_DIRS.has(program.slice(0, slash) || '/') ? base : undefined
}
