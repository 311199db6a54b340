/** Unified exec: exec_command / write_stdin over sandboxed processes (PTYs with `tty`). */
export { createUnifiedExec, type UnifiedExec, type UnifiedExecOptions } from './tools.js'
export { unifiedExecRuntime, type ExecCommandRequest, type ExecCommandAttempt } from './runtime.js'
export { MAX_SESSIONS, PROTECTED_RECENT, EXEC_YIELD, WRITE_YIELD, POLL_YIELD, MODEL_OUTPUT, CAPTURE_BYTES } from './limits.js'
