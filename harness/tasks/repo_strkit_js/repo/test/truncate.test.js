import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { truncate, truncateWords } from '../src/truncate.js';

describe('truncate', () => {
  test('short text is unchanged', () => assert.equal(truncate('hello', 10), 'hello'));
  test('text of exactly max is unchanged', () => assert.equal(truncate('hello', 5), 'hello'));
  test('long text ends in the ellipsis', () => assert.equal(truncate('hello world', 8), 'hello w…'));
  test('the result fits within max', () => {
    for (let max = 1; max < 12; max += 1) assert.ok(truncate('hello world!', max).length <= max, `max ${max}`);
  });
  test('a custom ellipsis counts toward max', () => assert.equal(truncate('hello world', 8, { ellipsis: '...' }), 'hello...'));
  test('an empty ellipsis cuts hard', () => assert.equal(truncate('hello world', 5, { ellipsis: '' }), 'hello'));
  test('max shorter than the ellipsis', () => assert.equal(truncate('hello', 2, { ellipsis: '...' }), '..'));
  test('max 0 gives the empty string', () => assert.equal(truncate('hello', 0), ''));
  test('a negative max is refused', () => assert.throws(() => truncate('x', -1), RangeError));
  test('a fractional max is refused', () => assert.throws(() => truncate('x', 2.5), RangeError));
});

describe('truncateWords', () => {
  test('cuts at a word boundary', () => assert.equal(truncateWords('the quick brown fox', 12), 'the quick…'));
  test('one long word is cut hard', () => assert.equal(truncateWords('supercalifragilistic', 6), 'super…'));
  test('short text is unchanged', () => assert.equal(truncateWords('the fox', 20), 'the fox'));
});
