/**
 * The model's view of a period of output: at most `max` bytes of it, the
 * head and the tail kept, and one line in the middle saying how many bytes
 * were left out — so the model knows the output is incomplete and by how
 * much, never a silently shortened transcript.
 */
import { decodeHead, decodeTail } from '../../orchestrator/output.js'
import type { Taken } from './output-buffer.js'

export interface ModelOutput {
  readonly text: string
  /** Bytes of the period not in `text` (the capture cap's and the model cap's together). */
  readonly omitted: number
  /** Bytes printed in the period. */
  readonly total: number
}

export function forModel(taken: Taken, max: number): ModelOutput {
  // The front comes only from the kept head and the back only from the
  // kept tail, so the capture cap's gap always lies inside what the marker
  // stands for. Half of `max` for each side; what one side does not use,
  // the other may.
  const backLen = Math.min(taken.tail.length, max - Math.min(Math.floor(max / 2), taken.head.length))
  const frontLen = Math.min(taken.head.length, max - backLen)
  const front = taken.head.subarray(0, frontLen)
  const back = taken.tail.subarray(taken.tail.length - backLen)
  const omitted = taken.total - frontLen - backLen
  if (omitted === 0) return { text: Buffer.concat([front, back]).toString('utf8'), omitted: 0, total: taken.total }
  const marker = `[cordon: ${omitted} of ${taken.total} bytes of output omitted here]`
  return { text: `${decodeHead(front)}\n${marker}\n${decodeTail(back)}`, omitted, total: taken.total }
}
