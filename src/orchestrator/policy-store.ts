/**
 * The exec policy as the rules files say *now*. Files are re-read when
 * they change (inode, size or mtime), so an amendment written by this or
 * another process is picked up by the next decision. Loading fails closed:
 * a missing or malformed rules file is a PolicyError, never an empty
 * policy. The amendments file is the exception for "missing": cordon
 * creates it on the first amendment, so until then it adds nothing.
 */
import { statSync } from 'node:fs'
import { createExecPolicy, type ExecPolicy } from '../exec-policy/index.js'

export class PolicyStore {
  private loaded: { signature: string; policy: ExecPolicy } | undefined

  constructor(
    private readonly rules: readonly string[],
    private readonly amendFile: string | undefined,
  ) {}

  /** The current policy, reloaded if any file changed since the last load. */
  async current(): Promise<ExecPolicy> {
    const { files, signature } = this.snapshot()
    if (this.loaded?.signature === signature) return this.loaded.policy
    const policy = await createExecPolicy({ rules: files })
    this.loaded = { signature, policy }
    return policy
  }

  private snapshot(): { files: string[]; signature: string } {
    const files = [...this.rules]
    const parts = files.map(signatureOf)
    if (this.amendFile && !files.includes(this.amendFile)) {
      const sig = signatureOf(this.amendFile)
      if (sig !== 'missing') {
        files.push(this.amendFile)
        parts.push(sig)
      }
    }
    return { files, signature: `${files.join('\0')}\n${parts.join('\n')}` }
  }
}

function signatureOf(file: string): string {
  try {
    const st = statSync(file, { bigint: true })
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`
  } catch {
    return 'missing' // createExecPolicy reports it, naming the file
  }
}
