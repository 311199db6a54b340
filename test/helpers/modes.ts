/**
 * The sandbox modes every escape probe runs in. Landlock-only mode always;
 * namespace mode (bubblewrap) joins this list once it is implemented and
 * available here, and the same probes then run unchanged in both.
 */
export type TestMode = 'landlock' | 'namespaces'

export function sandboxModes(): TestMode[] {
  return ['landlock']
}
