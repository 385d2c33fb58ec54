#!/usr/bin/env node
import { stopOnSignals } from "./interrupt.js";
import { processIo } from "./io.js";
import { main } from "./main.js";

stopOnSignals();
process.exitCode = await main(process.argv.slice(2), processIo());
