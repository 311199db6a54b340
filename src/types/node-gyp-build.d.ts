/** The part of node-gyp-build cordon uses (the package ships no types). */
declare module 'node-gyp-build' {
  interface NodeGypBuild {
    (dir: string): unknown
    /** The path of the addon for this platform/runtime: build/Release first, then prebuilds/<platform>-<arch>. */
    resolve(dir: string): string
  }
  const nodeGypBuild: NodeGypBuild
  export default nodeGypBuild
}
