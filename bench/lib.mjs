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
 * of them, each round starting one contender further on, so that each runs
 * first, second, … equally often (a call right after another kind of call
 * is not timed like one after its own kind: measured 0.03–0.08× apart in a
 * fixed order). `pauseMs`: idle time before each call, as between an agent's
 * commands (what the kernel does once idle differs from a tight loop).
 */
export async function race(contenders, rounds, { pauseMs = 0 } = {}) {
  const entries = Object.entries(contenders)
  const samples = Object.fromEntries(entries.map(([k]) => [k, []]))
  const pause = () => (pauseMs ? new Promise((r) => setTimeout(r, pauseMs)) : undefined)
  for (const [, fn] of entries) for (let i = 0; i < 5; i++) await fn() // warm-up
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < entries.length; j++) {
      const [k, fn] = entries[(i + j) % entries.length]
      samples[k].push((await pause(), await time(fn)))
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))
}
