#!/usr/bin/env node
// `npx tsx packages/sim/src/cli.ts scenario.yaml`: the same as `sdp sim scenario.yaml`.
import { simMain } from './sim-cli.ts';

process.exitCode = await simMain(process.argv.slice(2));
