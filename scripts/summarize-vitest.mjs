// Print vitest's JSON report as one plain closing line: "N passed, N failed, N skipped".
import { readFileSync } from 'node:fs'

const [file, label] = process.argv.slice(2)
const r = JSON.parse(readFileSync(file, 'utf8'))
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
console.log(`${label}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`)
process.exitCode = r.numFailedTests > 0 || r.numTotalTests === 0 ? 1 : 0
