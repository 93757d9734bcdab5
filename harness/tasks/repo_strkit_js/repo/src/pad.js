// Align text in fixed-width columns.
import { fill, length } from './chars.js';

/** `s` padded on the left to `width` characters with `pad` (never cut). */
export function padStart(s, width, pad = ' ') {
  return fill(pad, width - length(s)) + s;
}

/** `s` padded on the right to `width` characters with `pad` (never cut). */
export function padEnd(s, width, pad = ' ') {
  return s + fill(pad, width - length(s));
}

/** `s` centred in `width` characters; an odd leftover goes to the right. */
export function center(s, width, pad = ' ') {
  const room = width - length(s);
  if (room <= 0) return s;
  const left = Math.floor(room / 2);
  return fill(pad, left) + s + fill(pad, room - left);
}
