/**
 * What a session printed since the model last saw it, bounded: the
 * orchestrator's head-and-tail collector (output.ts) at the process
 * manager's capture cap (limits.ts CAPTURE_BYTES), one per period between
 * two calls. The model's own, smaller cap is applied to what a period
 * hands out (truncate.ts).
 */
import { OutputCollector } from '../../orchestrator/output.js'
import { CAPTURE_BYTES } from './limits.js'

export interface Taken {
  /** The kept head, then the kept tail; whatever was not kept lay between them. */
  readonly head: Buffer
  readonly tail: Buffer
  /** Everything printed in the period, kept or not. */
  readonly total: number
}

export class OutputBuffer {
  private period: OutputCollector

  constructor(private readonly cap: number = CAPTURE_BYTES) {
    this.period = new OutputCollector('stdout', cap, 'head-tail')
  }

  push(chunk: Buffer): void {
    this.period.push(chunk)
  }

  /** Hand out what was kept since the last take, and start a new period. */
  take(): Taken {
    const taken = this.period.kept()
    this.period = new OutputCollector('stdout', this.cap, 'head-tail')
    return taken
  }
}
