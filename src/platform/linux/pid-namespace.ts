/**
 * Whose is a leftover? cordon names what a process leaves on the host (a
 * placeholder lease, a run's cgroup) after its pid namespace and pid, so
 * that a later process can tell a dead owner from a live one — and never
 * takes a pid it cannot see (another pid namespace) for a dead one.
 */
import { readlinkSync } from 'node:fs'

let pidNs: string | undefined

/** This process's pid namespace (the inode number of /proc/self/ns/pid), read once; '0' when unreadable. */
export function pidNamespace(): string {
  if (pidNs) return pidNs
  try {
    return (pidNs = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0')
  } catch {
    return (pidNs = '0')
  }
}

/** Whether a process of this pid namespace is alive (EPERM: alive, someone else's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
