export { length, slice, fill } from './chars.js';
export { truncate, truncateWords } from './truncate.js';
export { padStart, padEnd, center } from './pad.js';
export { wrap, indent } from './wrap.js';
export { camelCase, snakeCase, kebabCase, titleCase } from './case.js';
export { slugify } from './slug.js';
