/**
 * The zygote module with every launch counted: zygoteFor() hands out the
 * real zygote behind a proxy whose start() calls `spawned` first. Every
 * other member is the zygote's own, bound to it (its state stays in one
 * object). For vi.mock of src/platform/linux/launch/zygote.js.
 */
import type * as ZygoteModule from '../../src/platform/linux/launch/zygote.js'

export function countingStarts(actual: typeof ZygoteModule, spawned: (...args: unknown[]) => void): typeof ZygoteModule {
  return {
    ...actual,
    zygoteFor: (launcher: string) => {
      const z = actual.zygoteFor(launcher)
      return new Proxy(z, {
        get(target, key) {
          if (key === 'start') return (...a: Parameters<typeof z.start>) => (spawned(...a), target.start(...a))
          const value: unknown = Reflect.get(target, key, target)
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
        },
      })
    },
  }
}
