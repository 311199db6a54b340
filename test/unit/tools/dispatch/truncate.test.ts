import { describe, expect, it } from 'vitest'
import { preview, truncateForModel } from '../../../../src/index.js'

describe('model-context truncation', () => {
  it('keeps short text as it is', () => {
    expect(truncateForModel('hello', 10)).toEqual({ text: 'hello', omittedBytes: 0 })
  })

  it('keeps head and tail and says how many bytes and lines were omitted', () => {
    const text = `${'a'.repeat(100)}\n${'b\n'.repeat(50)}${'c'.repeat(100)}`
    const t = truncateForModel(text, 100)
    expect(t.text.startsWith('a'.repeat(50))).toBe(true)
    expect(t.text.endsWith('c'.repeat(50))).toBe(true)
    expect(t.omittedBytes).toBe(Buffer.byteLength(text) - 100)
    expect(t.text).toContain(`[… ${t.omittedBytes} bytes (51 lines) omitted …]`)
  })

  it('never splits a multi-byte character', () => {
    const text = 'é'.repeat(100) // 200 bytes
    const t = truncateForModel(text, 51)
    expect(t.text).not.toContain('\uFFFD')
    const [head, tail] = t.text.split(/\n\[….*…\]\n/)
    expect(head).toBe('é'.repeat(12))
    expect(tail).toBe('é'.repeat(12))
    expect(t.omittedBytes).toBe(200 - 48)
  })

  it('previews keep the head within their own cap', () => {
    expect(preview('abcdef', 10)).toBe('abcdef')
    expect(preview('abcdefghij-klm', 10)).toBe('abcdefghij… (+4 bytes)')
    expect(preview('😀😀', 5)).toBe('😀… (+4 bytes)')
  })
})
