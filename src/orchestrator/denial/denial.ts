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
import { networkEvidence, protocolFor, targetInArgv, unixSocketIn } from './network-evidence.js'
import { evidenceLine } from '../text.js'
import { absoluteFrom, canonicalPath, hiddenByPrivateTmp, hostRefusesWrite, readRuleFor, writeRuleFor, type PathRule } from './path-rules.js'
import type { NetworkProtocol } from '../../exec-policy/index.js'

/**
 * `network-off`: the attempt had no network; `local-sockets-off`: it had
 * network `inet` (every host, no host unix socket) and a unix socket was
 * refused; `seccomp`: the syscall filter.
 */
export type DenialRule = PathRule | 'network-off' | 'local-sockets-off' | 'seccomp'

/**
 * Who saw the evidence: `cordon` — the launcher's own report of how the
 * command ended (SIGSYS from the seccomp filter); `output` — only the
 * command's own output says so, and the command can print anything.
 */
export type EvidenceBy = 'cordon' | 'output'

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
  /** Who named the host: the command's output (which it controls), or a URL in the command itself. */
  readonly hostFrom?: 'output' | 'command'
  /** Network denials: the host unix socket the output names (docker.sock, D-Bus), when it names one. */
  readonly socket?: string
  /**
   * Where the evidence was seen, the line itself (escaped: no terminal
   * escapes or bidi controls; at most 512 characters) and who saw it.
   */
  readonly evidence: { readonly source: 'stderr' | 'stdout' | 'signal'; readonly text: string; readonly by: EvidenceBy }
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
  // The launcher's supervisor reports the real wait status: this one cordon saw itself.
  if (result.signal === 'SIGSYS') out.push({ operation: 'syscall', rule: 'seccomp', evidence: { source: 'signal', text: 'killed by SIGSYS (seccomp filter)', by: 'cordon' } })
  for (const { source, line } of outputLines(result)) {
    if (out.length >= MAX_DENIALS) break
    if (/\bBad system call\b/.test(line) && !out.some((d) => d.rule === 'seccomp')) {
      out.push({ operation: 'syscall', rule: 'seccomp', evidence: said(source, line) })
    }
    if (isPermissionLine(line)) out.push(...fileDenials(input, source, line))
    else if (isMissingLine(line)) out.push(...hiddenPaths(input, source, line))
    const net = result.enforcement.network === 'off' ? networkDenial(input, source, line) : result.enforcement.network === 'inet' ? localSocketDenial(source, line) : undefined
    if (net) out.push(net)
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
    const evidence = said(source, line)
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
    if (hiddenByPrivateTmp(input.result.enforcement, path)) found.push({ operation: 'write', rule: 'private-tmp', path, evidence: said(source, line) })
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
  const socket = unixSocketIn(line)
  return {
    operation: 'network',
    rule: 'network-off',
    ...(host !== undefined && socket === undefined ? { host, protocol, hostFrom: ev.host !== undefined ? ('output' as const) : ('command' as const) } : {}),
    ...(port !== undefined && socket === undefined ? { port } : {}),
    ...(socket !== undefined ? { socket } : {}),
    evidence: said(source, line),
  }
}

/** With network `inet`, a refused socket can only be a unix one (EAFNOSUPPORT, or a failure naming one). */
function localSocketDenial(source: 'stderr' | 'stdout', line: string): Denial | undefined {
  const ev = networkEvidence(line)
  const socket = ev ? unixSocketIn(line) : undefined
  if (!ev || (ev.strength !== 'errno' && socket === undefined)) return undefined
  return { operation: 'network', rule: 'local-sockets-off', ...(socket !== undefined ? { socket } : {}), evidence: said(source, line) }
}

/** Evidence the command printed: escaped and bounded, and labelled as the command's own word. */
function said(source: 'stderr' | 'stdout', line: string): Denial['evidence'] {
  return { source, text: evidenceLine(line), by: 'output' }
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
  // A unix socket named anywhere is asked for separately from the hosts (issue 13 §5).
  const socket = network.find((d) => d.socket !== undefined && d !== best)
  return [...files, ...(best ? [best] : []), ...(socket ? [socket] : [])]
}
