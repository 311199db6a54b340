// Timing helpers shared by the bench scripts.

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Wall time of one awaited call, in ms. */
export async function time(fn) {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

/**
 * Median ms per contender; interleaved round by round so load spikes hit all
 * of them. `pauseMs`: idle time before each call, as between an agent's
 * commands (what the kernel does once idle differs from a tight loop).
 */
export async function race(contenders, rounds, { pauseMs = 0 } = {}) {
  const samples = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]))
  const pause = () => (pauseMs ? new Promise((r) => setTimeout(r, pauseMs)) : undefined)
  for (const fn of Object.values(contenders)) for (let i = 0; i < 5; i++) await fn() // warm-up
  for (let i = 0; i < rounds; i++) for (const [k, fn] of Object.entries(contenders)) samples[k].push((await pause(), await time(fn)))
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))
}
