/**
 * The "always allow" rule offered with an approval request. The exec
 * policy offers a command's whole argv, or nothing for programs whose argv
 * does not pin down what runs (interpreters, shells, wrappers, git, …:
 * exec-policy/rules/amendment.ts). Stored as it is, `cargo build --release
 * --target x86_64-unknown-linux-gnu` approves that one line and nothing
 * else, so the approver is asked again for every variation.
 *
 * Codex asks for a prefix that is "categorical and reasonably scoped to
 * similar capabilities", never an overly broad one (it bans prefixes such
 * as `python3`, `bash -lc`, `npm run`, bare `git`), and never one for a
 * destructive command. Here the orchestrator derives it itself: the
 * *shortest* prefix `argv[0..k)` that
 *
 *  1. leaves no subcommand open: the token after it is not a subcommand
 *     word (`cargo` alone would also approve `cargo publish`; `cargo build`
 *     does not). A word is what subcommands look like: lower-case, starting
 *     with a letter, with `-`, `_` or `:` inside (`run-script`, `build:prod`);
 *     a flag, a path, a number or a quoted phrase is not one. When options
 *     come before any word (`docker --context c compose up`) the subcommand
 *     cannot be located, and the whole command is offered instead;
 *  2. does not end at a runner — a subcommand that runs whatever is named
 *     after it (`npm run`, `pnpm dlx`, `uv run`): the name is kept (`npm run
 *     lint`). A runner followed by a path (`uv run ./x.py`: the file can
 *     change after the approval) or by an interpreter, shell or wrapper
 *     (`uv run python`) gets no rule, and neither do subcommands that run
 *     inline code or any command (`deno eval`, `go run`, `docker exec`);
 *  3. cannot be made destructive by what is appended. A prefix rule matches
 *     anything after the prefix, and a matching allow rule is decided before
 *     the dangerous-command heuristic is consulted: a rule `rm build` would
 *     also allow `rm build -rf ~`. Each trigger of that heuristic (`-rf`,
 *     `--force`, `of=`, `-R 777`, `-delete`, …) is appended in turn, and a
 *     prefix that any of them makes dangerous is not offered.
 *
 * A prefix that fails 3 gets no rule at all: a longer one still matches
 * the same appended arguments. The approver can still answer with its own
 * `pattern`, or approve once.
 */
import { dangerousReason, isAmendmentBanned } from '../../exec-policy/index.js'
import { basenameOf } from '../../exec-policy/shell/program-name.js'

const SUBCOMMAND_WORD = /^[a-z][a-z0-9]*(?:[-_:][a-z0-9]+)*$/

const table = (t: Record<string, string[]>): ReadonlyMap<string, ReadonlySet<string>> => new Map(Object.entries(t).map(([p, subs]) => [p, new Set(subs)]))

/** `program subcommand` pairs whose next token names what runs (a script, or a program): the name is kept in the rule. */
const RUNNERS = table({
  npm: ['run', 'run-script', 'exec', 'x'],
  pnpm: ['run', 'exec', 'dlx'],
  yarn: ['run', 'exec', 'dlx'],
  bun: ['run', 'x', 'exec'],
  deno: ['task'],
  uv: ['run', 'tool'],
  poetry: ['run'],
  pipenv: ['run'],
  pdm: ['run'],
  hatch: ['run'],
  rye: ['run'],
  conda: ['run'],
  bundle: ['exec'],
})

/** Subcommands that run code given inline or any command at all (a container's shell, a file that can change): no rule. */
const NO_RULE = table({
  deno: ['run', 'eval'],
  yarn: ['node'],
  npm: ['explore'],
  go: ['run'],
  docker: ['run', 'exec'],
  podman: ['run', 'exec'],
  kubectl: ['exec', 'run'],
  nix: ['run', 'shell', 'develop'],
})

/**
 * Appended to a candidate prefix to see whether arguments can make it
 * destructive: one trigger of each check in
 * exec-policy/heuristics/dangerous-commands.ts.
 */
const DANGER_PROBES: readonly (readonly string[])[] = [
  ['-rf', '/'],
  ['--force'],
  ['--recursive', '/'],
  ['-R', '777', '/'],
  ['-R', 'a+rwx', '/'],
  ['of=/dev/null'],
  ['-delete'],
  ['--hard'],
  ['-D', 'x'],
  ['--mirror'],
  ['drop'],
  ['expire'],
]

/** `argv[1]` is one of the program's subcommands in `t` (or, with `anywhere`, any later token is: after global options). */
function pairIn(t: ReadonlyMap<string, ReadonlySet<string>>, argv: readonly string[], anywhere = false): boolean {
  const subs = argv.length >= 2 ? t.get(basenameOf(argv[0] as string)) : undefined
  return subs !== undefined && (anywhere ? argv.slice(1).some((a) => subs.has(a)) : subs.has(argv[1] as string))
}

/** True when some arguments appended to `prefix` make the command destructive. */
function dangerousWhenExtended(prefix: readonly string[]): boolean {
  if (dangerousReason(prefix) !== undefined) return true
  return DANGER_PROBES.some((probe) => dangerousReason([...prefix, ...probe]) !== undefined)
}

/**
 * The prefix to offer as `prefix_rule(pattern=…, decision="allow")` for a
 * command the exec policy would let be amended (`proposed` is its whole
 * argv), or undefined when no prefix of it is safe to offer.
 */
export function amendmentPrefix(proposed: readonly string[] | undefined): string[] | undefined {
  if (!proposed || proposed.length === 0 || pairIn(NO_RULE, proposed, true)) return undefined
  const runner = pairIn(RUNNERS, proposed)
  if (runner) {
    // The runner's target is kept; one that is not a plain name (a path, a flag) or is itself
    // an interpreter, shell or wrapper (`uv run python`, `npm exec node`) gets no rule.
    const target = proposed.slice(2)
    if (target.length === 0 || !SUBCOMMAND_WORD.test(target[0] as string) || isAmendmentBanned(target)) return undefined
  }
  for (let k = runner ? 3 : 1; k <= proposed.length; k++) {
    const next = proposed[k]
    if (next !== undefined && SUBCOMMAND_WORD.test(next)) continue // a subcommand would be left open
    // Global options first (`docker --context c compose up`, `npm --prefix x test`): where the
    // subcommand is cannot be told, so the bare program is not offered — the whole command is.
    const prefix = k === 1 && next?.startsWith('-') && proposed.slice(2).some((a) => SUBCOMMAND_WORD.test(a)) ? [...proposed] : proposed.slice(0, k)
    return dangerousWhenExtended(prefix) ? undefined : prefix
  }
  return undefined
}
