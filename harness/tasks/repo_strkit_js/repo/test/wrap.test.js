import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { indent, wrap } from '../src/wrap.js';

describe('wrap', () => {
  test('wraps at the width', () => assert.deepEqual(wrap('the quick brown fox jumps', 10), ['the quick', 'brown fox', 'jumps']));
  test('keeps newlines', () => assert.deepEqual(wrap('ab cd\nef', 10), ['ab cd', 'ef']));
  test('splits long words', () => assert.deepEqual(wrap('abcdefghij', 4), ['abcd', 'efgh', 'ij']));
  test('collapses runs of spaces', () => assert.deepEqual(wrap('a    b', 10), ['a b']));
  test('counts emoji once', () => assert.deepEqual(wrap('👍👍👍 ok', 4), ['👍👍👍', 'ok']));
  test('an empty paragraph stays an empty line', () => assert.deepEqual(wrap('a\n\nb', 5), ['a', '', 'b']));
  test('width 0 is refused', () => assert.throws(() => wrap('a', 0), RangeError));
});

describe('indent', () => {
  test('prefixes every line', () => assert.equal(indent('a\nb', '> '), '> a\n> b'));
  test('leaves blank lines blank', () => assert.equal(indent('a\n\nb', '  '), '  a\n\n  b'));
});
