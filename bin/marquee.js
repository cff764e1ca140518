#!/usr/bin/env node
// The compiled command line; `npm install` builds dist/ through the prepare script.
import '../dist/src/cli/main.js';
