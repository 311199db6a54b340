/**
 * The error hierarchy. Every error cordon throws is a CordonError with a
 * string-literal `code`, so callers can switch on it without parsing text.
 */
export type CordonErrorCode =
  | 'E_POLICY' // a profile, rule file or argument is invalid
  | 'E_UNSUPPORTED' // a requested protection cannot be enforced on this host
  | 'E_SETUP' // a confinement step failed while setting up the child
  | 'E_SANDBOX_DENIED' // the command ran and was stopped by the sandbox
  | 'E_LOAD' // the native addon or launcher could not be loaded
  | 'E_ABORTED' // the caller aborted (AbortSignal) or an approval said abort
  | 'E_FORBIDDEN' // the exec policy or an approval forbids the command

export class CordonError extends Error {
  readonly code: CordonErrorCode
  constructor(code: CordonErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

/** Bad input: a profile, rules file, CLI flag. Nothing was run. */
export class PolicyError extends CordonError {
  /** Where the problem is: a zod path (`filesystem.write[0]`) or `file:line:col`. */
  readonly where: string | undefined
  constructor(message: string, options?: { where?: string; cause?: unknown }) {
    super('E_POLICY', options?.where ? `${options.where}: ${message}` : message, options)
    this.where = options?.where
  }
}

/** A protection the caller required is not available here. */
export class UnsupportedError extends CordonError {
  readonly feature: string
  readonly required: string
  readonly found: string
  readonly fix: string | undefined
  constructor(feature: string, required: string, found: string, fix?: string) {
    super('E_UNSUPPORTED', `${feature}: requires ${required}, found ${found}${fix ? ` (fix: ${fix})` : ''}`)
    this.feature = feature
    this.required = required
    this.found = found
    this.fix = fix
  }
}

/** A confinement step failed in the launcher (or in the addon). */
export class SetupError extends CordonError {
  readonly step: string
  readonly syscall: string
  readonly errno: number
  /** Symbolic errno, e.g. `EPERM`. */
  readonly errnoCode: string
  constructor(step: string, syscall: string, errno: number, errnoCode: string, detail?: string) {
    super('E_SETUP', `sandbox setup failed at step '${step}': ${syscall}: ${errnoCode} (errno ${errno})${detail ? ` — ${detail}` : ''}`)
    this.step = step
    this.syscall = syscall
    this.errno = errno
    this.errnoCode = errnoCode
  }
}

/** The command was stopped by the sandbox (used by the orchestrator). */
export class SandboxDeniedError extends CordonError {
  readonly evidence: readonly string[]
  constructor(message: string, evidence: readonly string[]) {
    super('E_SANDBOX_DENIED', message)
    this.evidence = evidence
  }
}

/** The native addon or launcher could not be found or loaded. */
export class LoadError extends CordonError {
  readonly tried: readonly string[]
  readonly fix: string
  constructor(message: string, tried: readonly string[], fix: string, cause?: unknown) {
    super('E_LOAD', `${message}; tried: ${tried.join(', ')}; fix: ${fix}`, { cause })
    this.tried = tried
    this.fix = fix
  }
}

export class AbortError extends CordonError {
  constructor(message = 'aborted', cause?: unknown) {
    super('E_ABORTED', message, { cause })
  }
}

export class ForbiddenError extends CordonError {
  readonly reason: string
  constructor(reason: string) {
    super('E_FORBIDDEN', `forbidden: ${reason}`)
    this.reason = reason
  }
}
