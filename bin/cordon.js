#!/usr/bin/env node
// The CLI ships bundled (dist/cli-bundle, built by `npm run build`): start-up time matters.
import { main } from '../dist/cli-bundle/main.js'

process.exitCode = await main(process.argv.slice(2))
