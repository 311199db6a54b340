/**
 * Denial detection with attribution: was a failed attempt stopped by the
 * sandbox, and by which rule? Evidence is
 * - the signal: SIGSYS is the seccomp filter's kill;
 * - error lines (EACCES, EPERM, EROFS in their usual spellings) naming a
 *   path that this attempt's profile really denies: outside the write roots,
 *   under a protected path, inside a denied read, outside the read roots —
 *   and that the host itself would not refuse;
 * - network failure lines when this attempt ran with the network off.
 * Launcher setup failures are not denials: they are SetupErrors (attempt.ts).
 * A successful run, a timeout or an abort has no denials.
 */
import type { SandboxResult } from '../../sandbox/result.js'
import { isMissingLine, isPermissionLine, outputLines, pathsInLine } from './error-lines.js'
import { networkEvidence, protocolFor, targetInArgv } from './network-evidence.js'
import { absoluteFrom, canonicalPath, hiddenByPrivateTmp, hostRefusesWrite, readRuleFor, writeRuleFor, type PathRule } from './path-rules.js'
import type { NetworkProtocol } from '../../exec-policy/index.js'

export type DenialRule = PathRule | 'network-off' | 'seccomp'

export interface Denial {
  /** What was refused. */
  readonly operation: 'read' | 'write' | 'network' | 'syscall'
  /** The profile rule that refused it. */
  readonly rule: DenialRule
  /** Canonical path, for filesystem denials. */
  readonly path?: string
  /** Network denials: the target, when the output or the command names it. */
  readonly host?: string
  readonly port?: number
  readonly protocol?: NetworkProtocol
  /** Where the evidence was seen, and the line itself. */
  readonly evidence: { readonly source: 'stderr' | 'stdout' | 'signal'; readonly text: string }
}

export interface DetectInput {
  readonly result: SandboxResult
  /** The directory the command ran in (relative paths in errors resolve here). */
  readonly cwd: string
  /** The command as the caller gave it (a URL in it names the network target). */
  readonly command: readonly string[]
}

const MAX_DENIALS = 32

export function detectDenials(input: DetectInput): Denial[] {
  const { result } = input
  if (result.exitCode === 0 || result.timedOut || result.isCanceled) return []
  const out: Denial[] = []
  if (result.signal === 'SIGSYS') out.push({ operation: 'syscall', rule: 'seccomp', evidence: { source: 'signal', text: 'killed by SIGSYS (seccomp filter)' } })
  for (const { source, line } of outputLines(result)) {
    if (out.length >= MAX_DENIALS) break
    if (/\bBad system call\b/.test(line) && !out.some((d) => d.rule === 'seccomp')) {
      out.push({ operation: 'syscall', rule: 'seccomp', evidence: { source, text: line } })
    }
    if (isPermissionLine(line)) out.push(...fileDenials(input, source, line))
    else if (isMissingLine(line)) out.push(...hiddenPaths(input, source, line))
    if (result.enforcement.network === 'off') {
      const net = networkDenial(input, source, line)
      if (net) out.push(net)
    }
  }
  return dedupe(out)
}

function fileDenials(input: DetectInput, source: 'stderr' | 'stdout', line: string): Denial[] {
  const fs = input.result.enforcement.filesystem
  const found: Denial[] = []
  for (const raw of pathsInLine(line)) {
    const abs = absoluteFrom(input.cwd, raw)
    if (!abs || /^\/dev\/(tcp|udp)\//.test(abs)) continue
    const path = canonicalPath(abs)
    const evidence = { source, text: line }
    const read = readRuleFor(fs, path)
    if (read) {
      found.push({ operation: 'read', rule: read, path, evidence })
      continue
    }
    const write = writeRuleFor(fs, path)
    // The host refusing it too means file modes or a read-only mount: not ours.
    if (write && !hostRefusesWrite(path)) found.push({ operation: 'write', rule: write, path, evidence })
  }
  return found
}

/** ENOENT for a host path the namespace sandbox hides (private /tmp): widening makes it visible. */
function hiddenPaths(input: DetectInput, source: 'stderr' | 'stdout', line: string): Denial[] {
  const found: Denial[] = []
  for (const raw of pathsInLine(line)) {
    const abs = absoluteFrom(input.cwd, raw)
    if (!abs) continue
    const path = canonicalPath(abs)
    if (hiddenByPrivateTmp(input.result.enforcement, path)) found.push({ operation: 'write', rule: 'private-tmp', path, evidence: { source, text: line } })
  }
  return found
}

function networkDenial(input: DetectInput, source: 'stderr' | 'stdout', line: string): Denial | undefined {
  const ev = networkEvidence(line)
  if (!ev) return undefined
  const fromArgv = targetInArgv(input.command)
  const host = ev.host ?? fromArgv?.host
  const port = ev.port ?? (ev.host === undefined ? fromArgv?.port : undefined)
  const protocol = fromArgv && fromArgv.host === host ? fromArgv.protocol : protocolFor(port)
  return {
    operation: 'network',
    rule: 'network-off',
    ...(host !== undefined ? { host, protocol } : {}),
    ...(port !== undefined ? { port } : {}),
    evidence: { source, text: line },
  }
}

/** One denial per (rule, path); one network denial, preferring a line that names the target. */
function dedupe(denials: Denial[]): Denial[] {
  const seen = new Set<string>()
  const files = denials.filter((d) => {
    if (d.operation === 'network') return false
    const key = `${d.rule}\0${d.path ?? ''}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const network = denials.filter((d) => d.operation === 'network')
  const best = network.find((d) => d.host !== undefined && d.port !== undefined) ?? network.find((d) => d.host !== undefined) ?? network[0]
  return best ? [...files, best] : files
}
