/** The Linux backend's own plan of one launch: what to spawn, and what it will enforce. */
import type { SetupError } from '../../errors.js'
import type { Enforcement } from '../enforcement.js'
import type { PlanTemplate } from './landlock/plan.js'
import type { RunCgroup } from './cgroup/run-cgroup.js'

export interface LinuxPrepared {
  /** The launcher binary: it runs as the zygote that forks every child. */
  launcher: string
  /** What the child runs: the launcher itself (`file` = `launcher`), or bwrap with the launcher inside. */
  file: string
  args: string[]
  /** Namespace mode: paths bwrap binds by descriptor (`--bind-fd 5…`), opened without following symlinks at launch. */
  bindSources?: string[]
  /** Checks once the command has run (namespace mode: a planted gitdir `commondir` removed); each returns notes for the report. */
  afterRun?: () => string[]
  template: PlanTemplate
  /**
   * Namespace mode: what bwrap's failure before the launcher reported
   * means. A namespace that could be created at probe time and cannot now
   * (the host changed) gives a SetupError naming the cause and the fix, and
   * the probe is forgotten, so the next plan probes again.
   */
  namespaceFailure?: (stderr: string) => SetupError | undefined
  /**
   * Landlock is the only filesystem confinement of this launch (Landlock
   * mode) and the caller did not accept running without it: the launcher
   * refuses when Landlock cannot be applied at launch (its compat `hard`),
   * whatever the caller's compat says — a kernel or parent sandbox that
   * changed since planning must not turn into an unconfined run.
   */
  landlockRequired?: boolean
  enforcement: Enforcement
  /** The run's own cgroup (cgroup/attach.ts): joined by the child before it runs anything, killed and removed at the run's end. */
  cgroup?: RunCgroup
}
