// CI on a real runner (.github/workflows/real-runners.yml): fail unless this
// platform's sandbox is really in force. A missing or broken backend must
// fail the job, never turn into skipped tests.
//
// 1. doctor() must name a mode other than 'none';
// 2. a default sandbox must report status full or partial with its mechanism;
// 3. a probe run inside it must be refused a denied file (~/.ssh/…) with
//    EPERM/EACCES, while the same probe reads an allowed file in the same run
//    (so node itself works inside the sandbox), and the denied file is
//    readable unconfined (so the probe is known to work).
//
// Usage: node scripts/ci-require-sandbox.mjs (after `npm run build`).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const fail = (why) => {
  console.error(`ci-require-sandbox: FAIL: ${why}`)
  process.exit(1)
}

const home = mkdtempSync(join(tmpdir(), 'cordon-ci-home-'))
process.env.HOME = home
process.env.USERPROFILE = home
const { createSandbox, doctor } = await import('../dist/index.js')
try {
  const d = doctor()
  console.log(JSON.stringify(d, null, 2))
  if (d.auto.mode === 'none') fail(`doctor: no mode works here (${d.auto.reason})`)

  const secret = join(home, '.ssh', 'id_cordon_ci')
  mkdirSync(join(home, '.ssh'))
  writeFileSync(secret, 'not a key\n')
  const allowed = join(home, 'allowed.txt')
  writeFileSync(allowed, 'allowed\n')
  const probe = ['-e', 'const fs = require("fs"); for (const f of process.argv.slice(1)) { try { fs.readFileSync(f); console.log("read " + f) } catch (e) { console.log(e.code + " " + f) } }']

  const unconfined = execFileSync(process.execPath, [...probe, secret], { encoding: 'utf8' })
  if (!unconfined.includes(`read ${secret}`)) fail(`the probe cannot read ${secret} even unconfined: ${unconfined}`)

  const sb = createSandbox({ cwd: home, compat: 'best-effort' })
  const r = await sb.run([process.execPath, ...probe, allowed, secret], { timeout: 60_000 })
  sb.close()
  console.log(JSON.stringify({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, enforcement: r.enforcement }, null, 2))
  if (!['full', 'partial'].includes(r.enforcement.status) || r.enforcement.mechanisms.length === 0) fail(`enforcement ${r.enforcement.status}, mechanisms [${r.enforcement.mechanisms}]`)
  if (!r.stdout.includes(`read ${allowed}`)) fail('node could not read an allowed file inside the sandbox: the probe proves nothing')
  if (!/^(EPERM|EACCES) /m.test(r.stdout) || r.stdout.includes(`read ${secret}`)) fail(`the denied file was not refused: ${r.stdout}`)
  console.log(`ci-require-sandbox: ok (${r.enforcement.mode}: ${r.enforcement.mechanisms.join(', ')})`)
} finally {
  rmSync(home, { recursive: true, force: true })
}
