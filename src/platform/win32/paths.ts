/**
 * Windows path containment, the same on any OS the tests run on (node:path's
 * win32 flavour): case-insensitive, as NTFS names are for the Win32 API.
 */
import { win32 } from 'node:path'

export function isWithinWin32(p: string, root: string): boolean {
  const a = win32.normalize(p).toLowerCase()
  const r = win32.normalize(root).toLowerCase().replace(/\\+$/, '')
  return a === r || a.startsWith(r + '\\')
}
