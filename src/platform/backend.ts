/** What a platform backend hands the sandbox: what to spawn and what it will enforce. */
import type { Enforcement } from '../sandbox/enforcement.js'
import type { LauncherPlan } from './linux/plan.js'

export interface Prepared {
  file: string
  args: string[]
  template: Omit<LauncherPlan, 'argv' | 'env' | 'compat'>
  enforcement: Enforcement
}
