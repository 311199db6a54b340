/**
 * The signal of one run: it aborts when the orchestrator's stop
 * (abortAll) or the run's own signal does. What AbortSignal.any() gives,
 * without its weak references and finalization bookkeeping, which cost
 * ≈ 0.05–0.1 ms of garbage collection per exec; instead the two listeners
 * are removed explicitly (`detach`) once nothing of the run listens any
 * more — for a run whose process outlives it (a unified-exec session, whose
 * network requests may still ask the approvers with this signal), when
 * that process's deferred PostToolUse has run.
 */
export interface LinkedSignal {
  readonly signal: AbortSignal
  /** Unhook from both sources (idempotent); the signal keeps its state. */
  detach(): void
}

export function linkSignals(stop: AbortSignal, own: AbortSignal | undefined): LinkedSignal {
  if (!own) return { signal: stop, detach: () => {} } // the orchestrator's stop alone is the run's signal
  const ctl = new AbortController()
  const fromStop = () => ctl.abort(stop.reason)
  const fromOwn = () => ctl.abort(own.reason)
  const detach = () => {
    stop.removeEventListener('abort', fromStop)
    own.removeEventListener('abort', fromOwn)
  }
  if (stop.aborted) fromStop()
  else if (own.aborted) fromOwn()
  else {
    stop.addEventListener('abort', fromStop, { once: true })
    own.addEventListener('abort', fromOwn, { once: true })
  }
  return { signal: ctl.signal, detach }
}
