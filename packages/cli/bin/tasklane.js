#!/usr/bin/env node
/**
 * The `tasklane` executable: the built CLI, dist/main.js. It is a file of its own, outside
 * dist/, so that npm links the bin even where dist/ is built after the install (a checkout of
 * the repository, whose `prepare` builds it).
 */
import '../dist/main.js';
