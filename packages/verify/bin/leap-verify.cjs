#!/usr/bin/env node
// The bin npm links at install time, before dist/ is built: it runs the bundle the build makes.
require('../dist/bin/leap-verify.cjs');
