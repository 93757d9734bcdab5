import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fill, length, slice } from '../src/chars.js';

describe('chars', () => {
  test('length of ASCII', () => assert.equal(length('hello'), 5));
  test('length counts an emoji once', () => assert.equal(length('a👍b'), 3));
  test('length of empty', () => assert.equal(length(''), 0));
  test('slice by code points', () => assert.equal(slice('a👍bc', 1, 3), '👍b'));
  test('slice with a negative start', () => assert.equal(slice('a👍bc', -2), 'bc'));
  test('fill repeats and cuts', () => assert.equal(fill('ab', 5), 'ababa'));
  test('fill with nothing to fill', () => assert.equal(fill('ab', 0), ''));
  test('fill with an astral unit', () => assert.equal(fill('★', 3), '★★★'));
});
