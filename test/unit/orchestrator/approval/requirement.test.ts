/**
 * The requirement table: policy decision × approval mode × sandbox
 * permissions. `allow` is "no prompt", and still the profile's sandbox
 * unless Codex semantics are asked for.
 */
import { describe, expect, it } from 'vitest'
import type { CommandDecision, DecisionSource } from '../../../../src/exec-policy/index.js'
import { requirementFor, type ApprovalMode } from '../../../../src/orchestrator/index.js'

function decision(d: CommandDecision['decision'], source: DecisionSource, opaque = false): CommandDecision {
  return { decision: d, source, matchedRules: [], segments: [{ argv: ['x'], decision: d, source, matchedRules: [] }], opaque }
}

const cases: [string, CommandDecision, Record<ApprovalMode, string>][] = [
  ['known safe', decision('allow', 'heuristic-safe'), { untrusted: 'skip', 'on-request': 'skip', 'on-failure': 'skip', never: 'skip' }],
  ['rule allow', decision('allow', 'rule'), { untrusted: 'skip', 'on-request': 'skip', 'on-failure': 'skip', never: 'skip' }],
  ['unknown', decision('prompt', 'default'), { untrusted: 'needs-approval', 'on-request': 'skip', 'on-failure': 'skip', never: 'skip' }],
  ['opaque script', decision('prompt', 'default', true), { untrusted: 'needs-approval', 'on-request': 'needs-approval', 'on-failure': 'skip', never: 'skip' }],
  ['dangerous', decision('prompt', 'heuristic-dangerous'), { untrusted: 'needs-approval', 'on-request': 'needs-approval', 'on-failure': 'needs-approval', never: 'forbidden' }],
  ['rule prompt', decision('prompt', 'rule'), { untrusted: 'needs-approval', 'on-request': 'needs-approval', 'on-failure': 'needs-approval', never: 'forbidden' }],
  ['rule forbidden', decision('forbidden', 'rule'), { untrusted: 'forbidden', 'on-request': 'forbidden', 'on-failure': 'forbidden', never: 'forbidden' }],
]

describe.each(cases)('%s', (_name, d, expected) => {
  it.each(Object.entries(expected))('mode %s → %s', (mode, kind) => {
    const r = requirementFor({ decision: d, settings: { mode: mode as ApprovalMode, reject: new Set() }, sandboxPermissions: 'use_default', allowMeansNoSandbox: false, patch: false })
    expect(r.kind).toBe(kind)
    if (r.kind === 'skip') expect(r.sandbox).toBe('profile')
  })
})

describe('sandbox choice', () => {
  const settings = { mode: 'on-request' as const, reject: new Set<never>() }
  it('allow never means "no sandbox" by default', () => {
    const r = requirementFor({ decision: decision('allow', 'rule'), settings, sandboxPermissions: 'use_default', allowMeansNoSandbox: false, patch: false })
    expect(r).toMatchObject({ kind: 'skip', sandbox: 'profile' })
  })

  it('with allowMeansNoSandbox a rule allow (not a heuristic) skips the profile sandbox', () => {
    expect(requirementFor({ decision: decision('allow', 'rule'), settings, sandboxPermissions: 'use_default', allowMeansNoSandbox: true, patch: false })).toMatchObject({ sandbox: 'escalated' })
    expect(requirementFor({ decision: decision('allow', 'heuristic-safe'), settings, sandboxPermissions: 'use_default', allowMeansNoSandbox: true, patch: false })).toMatchObject({ sandbox: 'profile' })
  })

  it('an interactive run (a terminal the model types into later) never leaves the sandbox on a rule\'s allow: sandboxed, or asked when it requests that', () => {
    const base = { decision: decision('allow', 'rule'), settings, allowMeansNoSandbox: true, patch: false, interactive: true }
    expect(requirementFor({ ...base, sandboxPermissions: 'use_default' })).toMatchObject({ kind: 'skip', sandbox: 'profile' })
    expect(requirementFor({ ...base, sandboxPermissions: 'require_escalated' })).toMatchObject({ kind: 'needs-approval', promptClass: 'escalation' })
    // The same without a terminal: the rule's allow runs it outside the sandbox, unasked.
    expect(requirementFor({ ...base, interactive: false, sandboxPermissions: 'require_escalated' })).toMatchObject({ kind: 'skip', sandbox: 'escalated' })
  })

  it('require_escalated asks (class escalation), even for a known-safe command; the justification stays out of the reason', () => {
    const r = requirementFor({ decision: decision('allow', 'heuristic-safe'), settings, sandboxPermissions: 'require_escalated', justification: 'why', allowMeansNoSandbox: false, patch: false })
    expect(r).toMatchObject({ kind: 'needs-approval', promptClass: 'escalation', reason: 'asks to run outside the sandbox' })
  })

  it('a forbidden decision stays forbidden whatever is asked', () => {
    const r = requirementFor({ decision: decision('forbidden', 'rule'), settings, sandboxPermissions: 'require_escalated', allowMeansNoSandbox: true, patch: false })
    expect(r.kind).toBe('forbidden')
  })
})
