/**
 * What the orchestrator knows about its profile's sandbox, from that
 * sandbox's own enforcement report (asked once, never a backend's plan):
 * the write roots, what a widening may cover in its mode, and whether the
 * rules files can be kept out of the command's reach (issue 13 §7).
 *
 * cordon's rules files and its amendments file decide what runs without a
 * prompt; a sandboxed command that appends `network_rule(…, decision=
 * "allow")` to one steers every later decision. So, wherever they are:
 *
 * - in namespace mode those inside a write root are added to the
 *   sandbox's protected paths (read-only binds) for every attempt — an
 *   amendments file that does not exist yet is created empty first, so it
 *   is bound as a file (a placeholder directory would stop cordon from
 *   appending to it); the report must then list them as protected;
 * - a rules or amendments file inside a write root that the report does
 *   not protect — Landlock mode cannot keep anything below a write root
 *   read-only — is refused with a PolicyError (fail closed, as for a rules
 *   file that does not parse): move it out of the write roots.
 *
 * A widening that writes everything (`require_escalated`) switches to
 * Landlock mode when it covers bwrap (the report's modeForExcluded), and
 * then writes the rules files too: its scope says so (scope.ts), and the
 * protected paths added here are dropped for it (they would make the
 * Landlock-mode launch refuse).
 */
import { closeSync, mkdirSync, openSync, realpathSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { PolicyError } from '../errors.js'
import type { Enforcement, WideningLimits } from '../platform/enforcement.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { isUnder } from './denial/path-rules.js'
import { applyWidening, type Widening } from './escalation/widen.js'

export interface Facts {
  readonly writeRoots: string[]
  readonly widening?: WideningLimits
  readonly report?: Enforcement
}

/** Real path; for a file that does not exist yet, its directory's real path and its name. */
function canonical(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    const dir = dirname(p)
    return dir === p ? p : join(canonical(dir), basename(p))
  }
}

export class BaseFacts {
  private facts: Facts | undefined
  /** Rules files this orchestrator adds to the protected paths (namespace mode, inside a write root). */
  private extra: string[] = []

  constructor(
    private readonly base: SandboxOptions,
    private readonly baseCwd: string,
    /** Rules files, then the amendments file (which may not exist yet). */
    private readonly rulesFiles: readonly string[],
    private readonly amendFile: string | undefined,
    private readonly make: (options: SandboxOptions) => Sandbox,
  ) {}

  get(): Facts {
    this.facts ??= this.read()
    return this.facts
  }

  /** The rules files as the report names paths (canonical). */
  canonicalRulesFiles(): string[] {
    return this.rulesFiles.map(canonical)
  }

  /** The options every attempt starts from: the caller's, plus the rules files protected here. */
  attemptBase(): SandboxOptions {
    this.get()
    return this.extra.length ? { ...this.base, protected: [...(this.base.protected ?? []), ...this.extra] } : this.base
  }

  /** Options for an attempt with `widening`; a switch to Landlock mode drops the protections added here. */
  optionsFor(widening: Widening | undefined, limits: WideningLimits | undefined): SandboxOptions {
    const out = applyWidening(this.attemptBase(), widening, limits)
    if (this.extra.length && out.mode === 'landlock' && this.base.mode !== 'landlock') {
      const { protected: _added, ...rest } = out
      return this.base.protected ? { ...rest, protected: this.base.protected } : rest
    }
    return out
  }

  /** Throws a PolicyError for a rules or amendments file a sandboxed command could write. */
  checkRulesFiles(): void {
    const { writeRoots, report } = this.get()
    for (const file of this.canonicalRulesFiles()) {
      const root = writeRoots.find((r) => isUnder(file, r))
      if (root === undefined) continue
      const kept = report?.mode === 'namespaces' && report.filesystem.protected.some((p) => isUnder(file, p))
      if (kept) continue
      const why = report?.mode === 'namespaces' ? 'the sandbox report does not list it as protected' : `${report?.mode ?? 'this'} mode cannot keep a path inside a write root read-only`
      throw new PolicyError(
        `the rules file ${file} lies inside the write root ${root}, where a sandboxed command could change what cordon allows (${why}); move it outside the write roots` +
          (report?.mode === 'namespaces' ? '' : ', or use namespace mode (bubblewrap), which keeps it read-only'),
        { where: 'createOrchestrator options: rules' },
      )
    }
  }

  private report(options: SandboxOptions): Enforcement {
    const sb = this.make(options)
    try {
      return sb.report()
    } finally {
      sb.close()
    }
  }

  private read(): Facts {
    let e: Enforcement
    try {
      e = this.report(this.base)
    } catch {
      return { writeRoots: [this.baseCwd] } // the report failed: at least the workspace is writable
    }
    if (e.mode === 'namespaces') {
      const inside = this.rulesFiles.filter((f) => e.filesystem.writeRoots.some((r) => isUnder(canonical(f), r)))
      if (inside.length) {
        if (this.amendFile && inside.includes(this.amendFile)) createEmpty(this.amendFile)
        this.extra = inside.map(canonical)
        try {
          e = this.report(this.attemptBaseUnchecked())
        } catch {
          this.extra = []
        }
      }
    }
    return { writeRoots: e.filesystem.writeRoots, widening: e.widening, report: e }
  }

  private attemptBaseUnchecked(): SandboxOptions {
    return { ...this.base, protected: [...(this.base.protected ?? []), ...this.extra] }
  }
}

/** Create a missing file (and its directory) without truncating an existing one. */
function createEmpty(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true })
    closeSync(openSync(file, 'a'))
  } catch {
    /* the check then finds it unprotected, or the first amendment reports why */
  }
}
