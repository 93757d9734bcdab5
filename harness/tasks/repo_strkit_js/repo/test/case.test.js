import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { camelCase, kebabCase, snakeCase, titleCase } from '../src/case.js';
import { slugify } from '../src/slug.js';

describe('case', () => {
  test('camelCase from words', () => assert.equal(camelCase('user id field'), 'userIdField'));
  test('camelCase from snake_case', () => assert.equal(camelCase('max_retry_count'), 'maxRetryCount'));
  test('snakeCase from camelCase', () => assert.equal(snakeCase('parseHTTPResponse'), 'parse_http_response'));
  test('kebabCase from PascalCase', () => assert.equal(kebabCase('OrderLineItem'), 'order-line-item'));
  test('titleCase', () => assert.equal(titleCase('hello_big-world'), 'Hello Big World'));
  test('digits stay with their word', () => assert.equal(snakeCase('utf8Decoder2'), 'utf8_decoder2'));
});

describe('slugify', () => {
  test('lower case and hyphens', () => assert.equal(slugify('Hello, World!'), 'hello-world'));
  test('strips accents', () => assert.equal(slugify('Crème Brûlée à la carte'), 'creme-brulee-a-la-carte'));
  test('no leading or trailing hyphen', () => assert.equal(slugify('  --Rock & Roll--  '), 'rock-roll'));
  test('respects maxLength without a trailing hyphen', () => assert.equal(slugify('one two three', { maxLength: 8 }), 'one-two'));
});
