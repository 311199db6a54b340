/** Where CLI commands write: injectable so commands are testable in-process. */
export interface Io {
  stdout(s: string): void
  stderr(s: string): void
}

export const processIo: Io = {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
}
