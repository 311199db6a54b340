/** The shape of the N-API addon (native/binding.cc). */
export interface NativeProbe {
  landlockAbi: number | null
  landlockErrno: number
  landlockErrata: number | null
  seccomp: boolean
  seccompErrno: number
  userns: boolean
  usernsErrno: number
  usernsStep: 'fork' | 'unshare' | 'mount' | null
  maxUserNamespaces: number | null
  unprivilegedUsernsClone: number | null
  apparmorRestrictUserns: number | null
  noNewPrivs: boolean
  kernel: string
  machine: string
}

export interface NativeHardening {
  dumpableOff: boolean
  coreZero: boolean
  scrubbed: number
}

export interface NativeBinding {
  probe(): NativeProbe
  hardenSelf(): NativeHardening
  abiVersion: number
}
