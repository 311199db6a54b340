/**
 * Which write roots a patch needs beyond the profile's. A path inside a
 * write root needs nothing more. A path the profile protects (`.git/hooks`,
 * a shell rc file) gets nothing either: the sandbox refuses the write and
 * the report says so — protected paths are never widened. Where the
 * sandbox cannot keep it read-only (Landlock mode), the whole patch is
 * refused here instead, before anything is asked or written. Any other path
 * needs the directory that will hold it (its nearest existing ancestor,
 * since missing directories are created) as an additional write root
 * (never one inside a denied read, as widen.ts),
 * which the orchestrator asks for as an escalation. A root that a
 * widening may never propose (root-guard.ts: `/`, a home, system or shared
 * temp directories, a directory holding a protected path or a rules file)
 * refuses the whole patch before anything is asked or written.
 */
import { dirname } from 'node:path'
import type { OrchestratorWorkspace } from '../../orchestrator/orchestrator.js'
import type { Enforcement } from '../../platform/enforcement.js'
import { isUnder, nearestExistingDir, readRuleFor } from '../../orchestrator/denial/path-rules.js'
import { refusedRoot } from '../../orchestrator/escalation/root-guard.js'
import type { PatchPlan } from './verify.js'

export type WriteNeeds = { readonly roots: readonly string[] } | { readonly refused: string }

export function writeNeeds(plan: PatchPlan, ws: OrchestratorWorkspace): WriteNeeds {
  const report = ws.report
  const roots = new Set<string>()
  for (const p of plan.paths) {
    const prot = report?.filesystem.protected.find((x) => isUnder(p, x))
    if (prot && report && !keepsProtected(report)) return { refused: `${p} lies in the protected path ${prot}, which this sandbox (${report.mode} mode) cannot keep read-only: a patch never writes it` }
    if (prot) continue
    if (ws.writeRoots.some((r) => isUnder(p, r))) continue
    const root = nearestExistingDir(dirname(p))
    if (!report) return { refused: `${p} lies outside the write roots, and the sandbox's report (needed to check a wider root) could not be made` }
    const denied = report.filesystem.denyRead.find((d) => isUnder(root, d))
    if (denied) return { refused: `${p} lies in ${denied}, which the profile denies reading: a denied read is never widened` }
    const why = refusedRoot(root, 'write', report, { rulesFiles: ws.rulesFiles })
    if (why) return { refused: `${p} lies outside the write roots, and ${why}` }
    roots.add(root)
  }
  return { roots: [...roots] }
}

/**
 * The sandbox refuses writes to its protected paths: namespace mode binds
 * them read-only; Landlock cannot narrow a write root (a git hook written
 * there would run unconfined at the next `git commit`), and says so in
 * `missing`.
 */
function keepsProtected(report: Enforcement): boolean {
  return report.mode === 'namespaces' && !report.missing.some((m) => m.protection === 'protected-paths')
}

/**
 * Why a command in the profile's sandbox could not read `path` as this
 * process sees it (undefined: it can): a rule denies it, or it lies in a
 * directory the command sees as its own private one (namespace mode /tmp,
 * outside the write roots) — the host's file there is not the command's,
 * and matching a patch's context against it would be an oracle on it.
 */
export function unreadableIn(ws: OrchestratorWorkspace): (path: string) => string | undefined {
  return (path) => {
    if (!ws.report) return 'no sandbox report'
    const fs = ws.report.filesystem
    const priv = fs.privateDirs.some((d) => isUnder(path, d)) && !fs.writeRoots.some((r) => isUnder(path, r))
    return readRuleFor(fs, path) ?? (priv ? 'private-tmp' : undefined)
  }
}
