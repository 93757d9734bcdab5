import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { length } from '../src/chars.js';
import { truncate, truncateWords } from '../src/truncate.js';

describe('truncate unicode', () => {
  test('an emoji counts as one character', () => assert.equal(truncate('ok 👍', 4), 'ok 👍'));
  test('never splits a surrogate pair', () => {
    const out = truncate('party 🎉🎉🎉 time', 8);
    assert.equal(out, 'party 🎉…');
    assert.ok(out.isWellFormed ? out.isWellFormed() : !/[\ud800-\udbff](?![\udc00-\udfff])/.test(out));
  });
  test('max counts characters, not UTF-16 units', () => {
    for (let max = 1; max < 10; max += 1) assert.ok(length(truncate('👍👍👍👍👍👍👍👍👍👍', max)) <= max, `max ${max}`);
    assert.equal(length(truncate('👍👍👍👍👍👍👍👍👍👍', 5)), 5);
  });
  test('an astral ellipsis counts once', () => assert.equal(truncate('hello world', 6, { ellipsis: '👉' }), 'hello👉'));
  test('truncateWords keeps whole emoji words', () => assert.equal(truncateWords('🍕🍕🍕 pizza', 5), '🍕🍕🍕…'));
});
