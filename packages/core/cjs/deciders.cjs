'use strict';
// @sdp/core/deciders is built as ES modules only. A Node that can require() an ES module (20.19+, 22.12+) gets the
// same module import() gives; an older one gets a message that says what to do instead of a resolver error.
if (process.features.require_module) module.exports = require('../dist/deciders.js');
else throw new Error("@sdp/core/deciders is an ES module: load it with import (import { ... } from '@sdp/core/deciders') or, from CommonJS, with await import('@sdp/core/deciders'); this Node cannot require() ES modules (Node 20.19 or later can)");
