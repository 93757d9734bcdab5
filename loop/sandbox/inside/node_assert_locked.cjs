// Preloaded (NODE_OPTIONS --require) into every node process of a repository test run, before any candidate code:
// node:assert, node:assert/strict and AssertionError are objects the code under test shares with the test files, so
// a patch could replace `assert.ok` with a no-op and pass every predicate for real. Their own properties become
// read-only here (an assignment throws in a module, is ignored in sloppy code); new properties may still be added,
// so a suite that hangs its own helpers on assert keeps working. `ok(...args)` spreads its arguments through the
// array iterator, which a patch could make turn `false` into `true`: that iterator is locked too.
'use strict';
const assert = require('node:assert');

const arrayIterator = Object.getPrototypeOf([][Symbol.iterator]());
const targets = [assert, assert.strict, assert.AssertionError, assert.AssertionError.prototype];
const only = new Map([[Array.prototype, [Symbol.iterator]], [arrayIterator, ['next']]]);
for (const target of [...targets, ...only.keys()]) {
  for (const key of only.get(target) || Reflect.ownKeys(target)) {
    const d = Object.getOwnPropertyDescriptor(target, key);
    if (!d.configurable && (!('writable' in d) || !d.writable)) continue;
    Object.defineProperty(target, key, 'value' in d ? { writable: false, configurable: false } : { configurable: false });
  }
}
