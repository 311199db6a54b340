/**
 * Descriptors 0, 1 and 2 must be open before cordon opens any of its own
 * (a zygote socket, a temp-dir sweep): one that landed there would be
 * handed to a command that inherits the caller's stdio. A closed one is
 * pointed at /dev/null, which is what it reads as for the caller anyway.
 */
import { closeSync, fstatSync, openSync } from 'node:fs'

export function standardFdsOpen(): void {
  for (let fd = 0; fd <= 2; fd++) {
    try {
      fstatSync(fd)
    } catch {
      const opened = openSync('/dev/null', fd === 0 ? 'r' : 'w')
      if (opened !== fd) closeSync(opened) // fd was opened meanwhile by someone else: fine too
    }
  }
}
