/**
 * Approvals "for the session": a set of canonical keys (command-key.ts)
 * that skip the prompt while this orchestrator lives. A request with
 * several keys (a patch touching several paths) skips only when every key
 * was approved. Nothing here is persisted: lasting approvals are policy
 * amendments, written to a rules file.
 */
export class SessionCache {
  private readonly keys = new Set<string>()

  /** True when every key is approved (and there is at least one). */
  covers(keys: readonly string[]): boolean {
    return keys.length > 0 && keys.every((k) => this.keys.has(k))
  }

  approve(keys: readonly string[]): void {
    for (const k of keys) this.keys.add(k)
  }

  clear(): void {
    this.keys.clear()
  }

  get size(): number {
    return this.keys.size
  }
}
