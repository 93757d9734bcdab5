// Word wrap for plain-text e-mails and terminal output.
import { length, slice } from './chars.js';

/**
 * The lines of `text` wrapped at `width` characters. Words longer than `width` are split;
 * existing newlines are kept; runs of spaces between words collapse to one.
 */
export function wrap(text, width) {
  if (!Number.isInteger(width) || width < 1) throw new RangeError(`width must be a positive integer, got ${width}`);
  const out = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (let word of paragraph.split(' ').filter(Boolean)) {
      while (length(word) > width) {
        if (line) { out.push(line); line = ''; }
        out.push(slice(word, 0, width));
        word = slice(word, width);
      }
      if (!word) continue;
      if (!line) line = word;
      else if (length(line) + 1 + length(word) <= width) line += ' ' + word;
      else { out.push(line); line = word; }
    }
    out.push(line);
  }
  return out;
}

/** Every line of `text` prefixed with `prefix` (blank lines stay blank). */
export function indent(text, prefix) {
  return text.split('\n').map((l) => (l.trim() ? prefix + l : l)).join('\n');
}
