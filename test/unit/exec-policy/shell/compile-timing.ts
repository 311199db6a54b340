/**
 * Measuring what the grammar warm-up costs the event loop, against what a
 * synchronous compile costs in the same process — ratios, not milliseconds.
 *
 * The warm-up tests turn Liftoff (V8's baseline wasm compiler) off for
 * their process before any wasm is compiled. With it, compiling the lexer
 * takes tens of ms on a fast machine: too close to a 10 ms timer for a gap
 * to say anything. With the optimising compiler alone it takes a second or
 * more, as in issue 11, and any compile left on the main thread stands out.
 * Each test file runs in its own process (vitest `pool: 'forks'`), so the
 * flag reaches no other test.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { setFlagsFromString } from 'node:v8'
import { Language, Parser } from 'web-tree-sitter'

export function optimisingCompilerOnly(): void {
  setFlagsFromString('--no-liftoff')
}

export interface Ticks {
  /** How many times the timer fired. */
  readonly count: number
  /** The longest time the loop went without a tick, from start to stop (ms). */
  readonly maxGap: number
}

/** A `periodMs` interval timer, recording when it fires. */
export function startTicks(periodMs = 10): { stop(): Ticks } {
  const times = [performance.now()]
  const timer = setInterval(() => times.push(performance.now()), periodMs)
  return {
    stop() {
      clearInterval(timer)
      const count = times.length - 1
      times.push(performance.now())
      let maxGap = 0
      for (let i = 1; i < times.length; i++) maxGap = Math.max(maxGap, (times[i] as number) - (times[i - 1] as number))
      return { count, maxGap }
    },
  }
}

/**
 * The grammar's bytes with a custom section appended: the same code, but
 * bytes V8 has not seen, so its per-process cache of compiled modules (keyed
 * by the bytes) cannot hand back the warmed-up code.
 */
function freshGrammarBytes(): Uint8Array<ArrayBuffer> {
  const grammar = readFileSync(createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
  const name = Buffer.from(`cordon-test-${process.pid}-${Math.random()}`)
  // Custom section: id 0, LEB128 size, LEB128 name length, name. Both lengths are < 128 here.
  const section = Buffer.concat([Buffer.from([0, name.length + 1, name.length]), name])
  return new Uint8Array(Buffer.concat([grammar, section]))
}

/**
 * What loading used to cost this thread: compile a fresh copy of the grammar
 * here and parse `scripts` with it (V8 compiles each function at its first
 * call). Needs web-tree-sitter initialised (loadBashParser() has run).
 */
export function compileOnThisThread(scripts: readonly string[]): { ms: number; parser: Parser } {
  const bytes = freshGrammarBytes()
  const start = performance.now()
  const parser = new Parser()
  parser.setLanguage(Language.loadSync(new WebAssembly.Module(bytes)))
  for (const script of scripts) parser.parse(script)?.delete()
  return { ms: performance.now() - start, parser }
}

/** The S-expression of a script's tree, for comparing two parsers. */
export function sexp(parser: Parser, script: string): string {
  const tree = parser.parse(script)
  try {
    return tree?.rootNode.toString() ?? 'no tree'
  } finally {
    tree?.delete()
  }
}
