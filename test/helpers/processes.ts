/** Watching processes the tests start (Linux: reads /proc). */
import { readdirSync, readFileSync } from 'node:fs'

/**
 * True once `pid` is gone, a zombie (Z: killed, waiting to be reaped by
 * init), or being reaped (X, "dead": proc(5) — its parent's wait has taken it
 * and /proc still shows it for a moment; CI once saw a killed `sleep` there).
 */
export function dead(pid: number): boolean {
  try {
    return /^\d+ \(.*\) [ZXx] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

/** Poll `check` every 50 ms until it holds or `ms` have passed; its last answer. */
export async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true
  return check()
}

/** Threads of this process with the name `comm` (the addon names its relay thread "cordon-relay"). */
export function threadsNamed(comm: string): number {
  return readdirSync('/proc/self/task').filter((t) => {
    try {
      return readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim() === comm
    } catch {
      return false
    }
  }).length
}

/** Descriptors open in this process now. */
export const openFdCount = (): number => readdirSync('/proc/self/fd').length

/** Host pids with `arg` as one whole argument of their command line (a pid namespace hides nothing from the host's /proc). */
export function pidsWithArg(arg: string): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').includes(arg)) out.push(Number(name))
    } catch {
      /* exited meanwhile */
    }
  }
  return out
}
