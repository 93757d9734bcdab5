import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { center, padEnd, padStart } from '../src/pad.js';

describe('pad', () => {
  test('padStart with spaces', () => assert.equal(padStart('7', 3), '  7'));
  test('padStart with zeros', () => assert.equal(padStart('42', 5, '0'), '00042'));
  test('padEnd with dots', () => assert.equal(padEnd('Total', 8, '.'), 'Total...'));
  test('padEnd never cuts', () => assert.equal(padEnd('overflowing', 4), 'overflowing'));
  test('padStart counts an emoji once', () => assert.equal(padStart('👍', 3), '  👍'));
  test('center with an even leftover', () => assert.equal(center('ab', 6, '*'), '**ab**'));
  test('center with an odd leftover', () => assert.equal(center('ab', 5, '*'), '*ab**'));
  test('center never cuts', () => assert.equal(center('abcdef', 3), 'abcdef'));
});
