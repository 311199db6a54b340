/**
 * The addon's descriptor helpers behind every launch: the sealed memfd that
 * carries the plan, and FdReader, which reads the status pipe and the
 * zygote's event pipe on Node's event loop (instead of node:net sockets).
 */
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, fstatSync, readSync, writeSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'
import { firstMissing, itWhere, unless } from '../helpers/requirements.js'

const { binding } = loadNative()

/** Collect what a reader delivers until its end-of-file call. */
function collect(fd: number): { done: Promise<{ chunks: Buffer[]; ends: number }>; reader: ReturnType<typeof start> } {
  const chunks: Buffer[] = []
  let ends = 0
  let finish!: (v: { chunks: Buffer[]; ends: number }) => void
  const done = new Promise<{ chunks: Buffer[]; ends: number }>((r) => (finish = r))
  const reader = start(fd, (c) => {
    if (c) chunks.push(c)
    else {
      ends++
      setTimeout(() => finish({ chunks, ends }), 20) // a second end call would land before this
    }
  })
  return { done, reader }
}
const start = (fd: number, onData: (c: Buffer | null) => void) => new binding.FdReader(fd, onData)

/** Whether fd is still open in this process. */
function isOpen(fd: number): boolean {
  try {
    fstatSync(fd)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'EBADF'
  }
}

describe('sealedMemfd', () => {
  it('holds exactly the data, from offset 0, close-on-exec and above the standard descriptors', () => {
    const data = Buffer.from(JSON.stringify({ argv: ['x'], pad: 'p'.repeat(200_000) })) // more than a pipe holds
    const fd = binding.sealedMemfd(data)
    try {
      expect(fd).toBeGreaterThan(2)
      const back = Buffer.alloc(data.length + 16)
      let n = 0
      for (let r = 1; r > 0; n += r) r = readSync(fd, back, n, back.length - n, null)
      expect(back.subarray(0, n).equals(data)).toBe(true)
      const flags = spawnSync('cat', [`/proc/${process.pid}/fdinfo/${fd}`], { encoding: 'utf8' }).stdout
      expect(Number.parseInt(/flags:\s+(\d+)/.exec(flags)![1]!, 8) & 0o2000000).toBe(0o2000000) // O_CLOEXEC
    } finally {
      closeSync(fd)
    }
  })

  it('is sealed: writing to it fails with EPERM, whoever holds the descriptor', () => {
    const fd = binding.sealedMemfd(Buffer.from('{"argv":["true"]}'))
    try {
      expect(() => writeSync(fd, 'x', 0)).toThrow(expect.objectContaining({ code: 'EPERM' }))
      expect(() => writeSync(fd, '{"argv":["evil"]}', 0)).toThrow(expect.objectContaining({ code: 'EPERM' }))
    } finally {
      closeSync(fd)
    }
  })

  // Hardened hosts (Linux ≥ 6.3) set vm.memfd_noexec=2: a memfd_create without
  // MFD_NOEXEC_SEAL is refused there, and every launch would fail. The sysctl
  // is per pid namespace, so root can set it in one of its own for this test.
  const noexec = firstMissing(
    unless(process.getuid?.() === 0, 'the memfd_noexec=2 test needs root (to set vm.memfd_noexec in a pid namespace of its own)'),
    unless(existsSync('/proc/sys/vm/memfd_noexec'), 'this kernel has no vm.memfd_noexec (< 6.3)'),
  )
  itWhere(noexec, 'is made where vm.memfd_noexec=2 refuses executable memfds', () => {
    const load = JSON.stringify(new URL('../../dist/native/load.js', import.meta.url).href)
    const script = `import { loadNative } from ${load}; const fd = loadNative().binding.sealedMemfd(Buffer.from('{}')); console.log(fd > 2 ? 'made' : 'no')`
    const r = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'sh', '-c', `echo 2 > /proc/sys/vm/memfd_noexec && exec "${process.execPath}" --input-type=module -e "$0"`, script], { encoding: 'utf8', timeout: 20_000 })
    expect(r.stderr).toBe('')
    expect(r.stdout.trim()).toBe('made')
  })

  it('rejects anything but a Buffer with a TypeError', () => {
    const memfd = binding.sealedMemfd as unknown as (...a: unknown[]) => number
    expect(() => memfd('text')).toThrow(TypeError)
    expect(() => memfd()).toThrow(TypeError)
  })
})

describe('FdReader', () => {
  it('delivers everything written, in order, then one null at end of file, and closes the descriptor', async () => {
    const [r, w] = binding.pipe()
    const { done } = collect(r)
    // More than a pipe holds in all, written a part per timer tick: the
    // reader runs on this same thread and drains the pipe in between.
    const parts = ['{"ok":true}\n', 'x'.repeat(60_000), 'y'.repeat(60_000), '\n{"exit":true}\n']
    const feed = (i: number) => {
      if (i === parts.length) return binding.close(w)
      writeSync(w, parts[i]!)
      setTimeout(() => feed(i + 1), 10)
    }
    feed(0)
    const { chunks, ends } = await done
    expect(Buffer.concat(chunks).toString()).toBe(parts.join(''))
    expect(ends).toBe(1)
    expect(isOpen(r)).toBe(false)
  })

  it('close() stops it: no more calls, the descriptor is closed', async () => {
    const [r, w] = binding.pipe()
    const calls: (Buffer | null)[] = []
    const reader = start(r, (c) => calls.push(c))
    reader.close()
    reader.close() // twice is harmless
    // The read end is gone: the writer gets EPIPE (Node ignores SIGPIPE).
    expect(() => writeSync(w, 'late')).toThrow(expect.objectContaining({ code: 'EPIPE' }))
    binding.close(w)
    await new Promise((res) => setTimeout(res, 30))
    expect(calls).toEqual([])
    expect(isOpen(r)).toBe(false)
  })

  it('an unref()ed reader does not keep a process alive (its end of file during exit is dropped, not fatal); a ref()ed one does until end of file', () => {
    const load = `const { loadNative } = await import(${JSON.stringify(new URL('../../dist/native/load.js', import.meta.url).href)})`
    const script = (ref: boolean) =>
      `${load}; const { binding } = loadNative(); const [r, w] = binding.pipe();` +
      `const rd = new binding.FdReader(r, (c) => { if (c === null) console.log('eof') }); ${ref ? '' : 'rd.unref();'}` +
      `setTimeout(() => binding.close(w), 300); console.log('started')`
    const run = (ref: boolean) => spawnSync(process.execPath, ['--input-type=module', '-e', script(ref)], { encoding: 'utf8', timeout: 20_000 })
    const unrefd = run(false)
    const refd = run(true)
    expect(unrefd.stderr).toBe('')
    expect(unrefd.stdout.trim().split('\n')).toEqual(['started'])
    expect(refd.stdout.trim().split('\n')).toEqual(['started', 'eof'])
  })

  it('an exception thrown by onData is an uncaught exception of the process, not lost', () => {
    const load = `const { loadNative } = await import(${JSON.stringify(new URL('../../dist/native/load.js', import.meta.url).href)})`
    const script = `${load}; const { binding } = loadNative(); const [r, w] = binding.pipe();` +
      `new binding.FdReader(r, (c) => { if (c) throw new Error('boom from onData') });` +
      `(await import('node:fs')).writeSync(w, 'x')`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('boom from onData')
  })

  it('pause() from onData stops reading at once; what arrives while paused comes after resume(), in order', async () => {
    const [r, w] = binding.pipe()
    const got: string[] = []
    let ended = false
    let reader: ReturnType<typeof start> | undefined = undefined
    reader = start(r, (c) => {
      if (c === null) return void (ended = true)
      got.push(c.toString())
      reader!.pause() // from within the read loop: no second read before resume()
    })
    writeSync(w, 'one')
    await new Promise((res) => setTimeout(res, 50))
    expect(got).toEqual(['one'])
    writeSync(w, 'two')
    writeSync(w, 'three')
    await new Promise((res) => setTimeout(res, 50))
    expect(got).toEqual(['one']) // paused: nothing read
    const written = 40_000 // below a pipe's 64 KiB: the writer does not block (what a full pipe does to it is pipe(7)'s)
    writeSync(w, Buffer.alloc(written, 120))
    await new Promise((res) => setTimeout(res, 50))
    expect(got).toEqual(['one'])
    reader.resume()
    await new Promise((res) => setTimeout(res, 50))
    expect(got.length).toBe(2) // one read after resume(), then paused again by onData
    let all = got.slice(1).join('')
    for (let i = 0; i < 200 && all.length < 'twothree'.length + written; i++) {
      reader.resume()
      await new Promise((res) => setTimeout(res, 5))
      all = got.slice(1).join('')
    }
    expect(all).toBe('twothree' + 'x'.repeat(written))
    binding.close(w)
    for (let i = 0; i < 100 && !ended; i++) {
      reader.resume()
      await new Promise((res) => setTimeout(res, 5))
    }
    expect(ended).toBe(true)
    expect(isOpen(r)).toBe(false)
  })

  it('pause() and resume() after the end, or twice in a row, do nothing', async () => {
    const [r, w] = binding.pipe()
    const { done, reader } = collect(r)
    reader.pause()
    reader.pause()
    writeSync(w, 'a')
    reader.resume()
    reader.resume()
    binding.close(w)
    const { chunks, ends } = await done
    expect(Buffer.concat(chunks).toString()).toBe('a')
    expect(ends).toBe(1)
    reader.pause()
    reader.resume()
  })

  it('rejects bad arguments with a TypeError (closing a descriptor it was given: it owns it) and one it cannot poll with EBADF', () => {
    const Ctor = binding.FdReader as unknown as new (...a: unknown[]) => unknown
    expect(() => new Ctor('3', () => {})).toThrow(TypeError)
    const [r, w] = binding.pipe()
    expect(() => new Ctor(r)).toThrow(TypeError)
    expect(isOpen(r)).toBe(false)
    binding.close(w)
    expect(() => new Ctor(1_000_000, () => {})).toThrow(expect.objectContaining({ code: 'EBADF' }))
  })
})
