/**
 * The second bound on a tool's output (the first is the process capture
 * cap, OutputSpec.maxBuffer): what enters the model's context. Past the
 * limit the head and the tail are kept and one marker line says how many
 * bytes (and lines) were left out between them. Telemetry previews have
 * their own, smaller cap and keep only the head.
 */

/** Default bytes of one tool output in the model's context. */
export const DEFAULT_MODEL_OUTPUT_BYTES = 16 * 1024
/** Default bytes of a lifecycle event's preview. */
export const DEFAULT_PREVIEW_BYTES = 1024

export interface Truncated {
  readonly text: string
  /** Bytes left out (0: nothing was). */
  readonly omittedBytes: number
}

/** Keep about half of `maxBytes` from each end, cut on character boundaries, with a marker between. */
export function truncateForModel(text: string, maxBytes: number): Truncated {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= maxBytes) return { text, omittedBytes: 0 }
  const half = Math.floor(maxBytes / 2)
  const head = cutUtf8(bytes.subarray(0, half), 'end')
  const tail = cutUtf8(bytes.subarray(bytes.length - half), 'start')
  const omitted = bytes.subarray(head.length, bytes.length - tail.length)
  const lines = countLines(omitted)
  const marker = `\n[… ${omitted.length} bytes${lines ? ` (${lines} lines)` : ''} omitted …]\n`
  return { text: `${head.toString('utf8')}${marker}${tail.toString('utf8')}`, omittedBytes: omitted.length }
}

/** The head of `text` within `maxBytes`, with how much more there was. */
export function preview(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= maxBytes) return text
  const head = cutUtf8(bytes.subarray(0, maxBytes), 'end')
  return `${head.toString('utf8')}… (+${bytes.length - head.length} bytes)`
}

/** Drop a partial UTF-8 character at the cut end of `b`. */
function cutUtf8(b: Buffer, cut: 'start' | 'end'): Buffer {
  if (cut === 'start') {
    let i = 0
    while (i < b.length && i < 4 && ((b[i] as number) & 0xc0) === 0x80) i++
    return b.subarray(i)
  }
  let i = b.length
  // Walk back over continuation bytes to the lead byte; drop it if its character is incomplete.
  let back = 0
  while (back < 4 && i - back - 1 >= 0 && ((b[i - back - 1] as number) & 0xc0) === 0x80) back++
  const lead = i - back - 1
  if (lead < 0) return b
  const need = leadLength(b[lead] as number)
  return need === back + 1 ? b : b.subarray(0, lead)
}

function leadLength(byte: number): number {
  if (byte < 0x80) return 1
  if (byte >= 0xf0) return 4
  if (byte >= 0xe0) return 3
  if (byte >= 0xc0) return 2
  return 1
}

function countLines(b: Buffer): number {
  let n = 0
  for (const c of b) if (c === 0x0a) n++
  return n
}
