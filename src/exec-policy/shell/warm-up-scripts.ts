/**
 * Scripts parsed once while the grammar warms up (grammar-worker.ts), off
 * the main thread. V8 compiles a WebAssembly function the first time it is
 * called (lazy compilation), on the thread that calls it; the compiled code
 * lives in the module and is shared by every thread that instantiates it.
 * So these scripts call, between them, every grammar function (the lexer,
 * the keyword lexer, each entry of the external scanner: heredocs, regexes,
 * `$((…))`) and the parser's error recovery. A function none of them reaches
 * is compiled on the main thread at its first use: small, but not free.
 */
export const WARM_UP_SCRIPTS: readonly string[] = [
  'git status && ls -la | wc -l; echo done # comment',
  "echo 'single' \"double $HOME ${x:-y} $(date) `id`\" c\\ d",
  'git log -3 --format=%h | head -5 > /tmp/out 2>&1 < /dev/null',
  'cat <<EOF\nline $x\nEOF\ncat <<-\'RAW\'\n\tliteral\n\tRAW\n',
  'for f in *.md {a,b} ~/x; do wc -l "$f"; done; while read -r l; do :; done < f',
  'if [[ -f x && $y =~ ^a.*b$ ]]; then echo $((1 + 2 * 3)); elif (( i++ )); then :; else exit 1; fi',
  'case "$1" in a|b) echo ab ;; *) echo other ;; esac',
  'f() { local a=(1 2 3); echo "${a[@]}" "${#a[@]}"; }; X=1 f &',
  'diff <(sort a) <(sort b) | tee >(wc -l) >/dev/null',
  'test -n "$x" || { echo missing >&2; exit 2; }',
  'echo ( unbalanced "quote ; if then fi',
  'a=$(( ',
]
