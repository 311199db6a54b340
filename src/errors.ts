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
  | 'E_TOOL_CONTRACT' // a tool was called with a payload of the wrong kind (a caller's or runtime's bug)
  | 'E_TOOL_SETUP' // a tool call could not run at all: its sandbox could not be set up

/**
 * Name an error for good. Not `new.target.name`: the CLI bundle is minified,
 * which renames classes (a PolicyError printed `"name": "v"`). Defined like
 * the `name` of a built-in error: writable and not enumerable (execa's
 * `setErrorName`); `toJSON` puts it back into JSON.
 */
function setErrorName(error: Error, name: string): void {
  Object.defineProperty(error, 'name', { value: name, writable: true, enumerable: false, configurable: true })
}

export class CordonError extends Error {
  readonly code: CordonErrorCode
  constructor(code: CordonErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    setErrorName(this, 'CordonError')
  }

  /**
   * For JSON.stringify: `name`, the error's own fields (`code` first), then
   * `message` (name and message are not enumerable, as on any error). Not
   * `cause`, which may be anything.
   */
  toJSON(): Record<string, unknown> {
    return { name: this.name, ...(this as object), message: this.message }
  }
}

/** Bad input: a profile, rules file, CLI flag. Nothing was run. */
export class PolicyError extends CordonError {
  /** Where the problem is: a zod path (`filesystem.write[0]`) or `file:line:col`. */
  readonly where: string | undefined
  constructor(message: string, options?: { where?: string; cause?: unknown }) {
    super('E_POLICY', options?.where ? `${options.where}: ${message}` : message, options)
    setErrorName(this, 'PolicyError')
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
    setErrorName(this, 'UnsupportedError')
    this.feature = feature
    this.required = required
    this.found = found
    this.fix = fix
  }
}

/**
 * A confinement step failed in the launcher (or in the addon). Made from a
 * native error by `fromNativeError` (src/native/native-error.ts), with that
 * error as `cause` when it was one.
 */
export class SetupError extends CordonError {
  readonly step: string
  readonly syscall: string
  readonly errno: number
  /** Symbolic errno, e.g. `EPERM`. */
  readonly errnoCode: string
  /**
   * The host changed between planning and launch (a path vanished, namespaces
   * stopped working): nothing ran, and a fresh plan may succeed. `run()`
   * plans again once by itself; a `spawn()` caller may do the same.
   */
  readonly hostChanged: boolean
  constructor(step: string, syscall: string, errno: number, errnoCode: string, detail?: string, options?: { cause?: unknown; hostChanged?: boolean }) {
    super('E_SETUP', `sandbox setup failed at step '${step}': ${syscall}: ${errnoCode} (errno ${errno})${detail ? ` — ${detail}` : ''}`, options)
    setErrorName(this, 'SetupError')
    this.step = step
    this.syscall = syscall
    this.errno = errno
    this.errnoCode = errnoCode
    this.hostChanged = options?.hostChanged === true
  }
}

/** The command was stopped by the sandbox (used by the orchestrator). */
export class SandboxDeniedError extends CordonError {
  readonly evidence: readonly string[]
  constructor(message: string, evidence: readonly string[]) {
    super('E_SANDBOX_DENIED', message)
    setErrorName(this, 'SandboxDeniedError')
    this.evidence = evidence
  }
}

/** The native addon or launcher could not be found or loaded. */
export class LoadError extends CordonError {
  readonly tried: readonly string[]
  readonly fix: string
  constructor(message: string, tried: readonly string[], fix: string, cause?: unknown) {
    super('E_LOAD', `${message}; tried: ${tried.join(', ')}; fix: ${fix}`, { cause })
    setErrorName(this, 'LoadError')
    this.tried = tried
    this.fix = fix
  }
}

export class AbortError extends CordonError {
  constructor(message = 'aborted', cause?: unknown) {
    super('E_ABORTED', message, { cause })
    setErrorName(this, 'AbortError')
  }
}

export class ForbiddenError extends CordonError {
  readonly reason: string
  constructor(reason: string) {
    super('E_FORBIDDEN', `forbidden: ${reason}`)
    setErrorName(this, 'ForbiddenError')
    this.reason = reason
  }
}

/**
 * A known tool was handed a payload of the wrong kind (a function tool
 * given freeform text, …): a contract broken by the caller or the model
 * runtime, not a failure of the tool, so it is not shown as one.
 */
export class ToolContractError extends CordonError {
  readonly tool: string
  readonly expected: string
  readonly got: string
  constructor(tool: string, expected: string, got: string) {
    super('E_TOOL_CONTRACT', `tool ${tool} takes a ${expected} payload, got ${got}`)
    setErrorName(this, 'ToolContractError')
    this.tool = tool
    this.expected = expected
    this.got = got
  }
}

/**
 * A tool call could not run at all: the sandbox of its attempt could not
 * be set up (`setup` is that error's name, code and message). A failure of
 * the command itself is a result for the model, never this.
 */
export class ToolSetupError extends CordonError {
  readonly tool: string
  readonly setup: { readonly name: string; readonly code: string; readonly message: string }
  constructor(tool: string, setup: { name: string; code: string; message: string }) {
    super('E_TOOL_SETUP', `tool ${tool} could not run: ${setup.message}`)
    setErrorName(this, 'ToolSetupError')
    this.tool = tool
    this.setup = setup
  }
}
