// Characters are Unicode code points: "👍" is one character, though JavaScript's .length says 2.

/** The number of code points in `s`. */
export function length(s) {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/** `s` from code point `start` up to (not including) `end`, like String.prototype.slice. */
export function slice(s, start, end) {
  return Array.from(s).slice(start, end).join('');
}

/** `s` repeated until it is `n` code points long (cut on a code point). */
export function fill(s, n) {
  if (n <= 0 || s === '') return '';
  const unit = Array.from(s);
  const out = [];
  for (let i = 0; i < n; i += 1) out.push(unit[i % unit.length]);
  return out.join('');
}
