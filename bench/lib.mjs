// Timing helpers shared by the bench scripts.

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Wall time of one awaited call, in ms. */
export async function time(fn) {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

/** Median ms per contender; interleaved round by round so load spikes hit all of them. */
export async function race(contenders, rounds) {
  const samples = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]))
  for (const fn of Object.values(contenders)) for (let i = 0; i < 5; i++) await fn() // warm-up
  for (let i = 0; i < rounds; i++) for (const [k, fn] of Object.entries(contenders)) samples[k].push(await time(fn))
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))
}
