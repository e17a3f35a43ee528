'use strict';
// @sdp/core/internal is built as ES modules only. A Node that can require() an ES module (20.19+, 22.12+) gets the
// same module import() gives; an older one gets a message that says what to do instead of a resolver error.
if (process.features.require_module) module.exports = require('../dist/internal.js');
else throw new Error("@sdp/core/internal is an ES module: load it with import (import { ... } from '@sdp/core/internal') or, from CommonJS, with await import('@sdp/core/internal'); this Node cannot require() ES modules (Node 20.19 or later can)");
