// Shorten text for table cells and notification previews.

/**
 * `s` cut to at most `max` characters, ending in `ellipsis` when anything was cut.
 * The ellipsis counts toward `max`; a `max` shorter than the ellipsis gives the ellipsis cut to `max`.
 */
export function truncate(s, max, { ellipsis = '…' } = {}) {
  if (!Number.isInteger(max) || max < 0) throw new RangeError(`max must be a non-negative integer, got ${max}`);
  if (s.length <= max) return s;
  if (ellipsis.length >= max) return ellipsis.slice(0, max);
  return s.slice(0, max - ellipsis.length) + ellipsis;
}

/** Like truncate, but cuts at the last space that keeps the result within `max` when there is one. */
export function truncateWords(s, max, { ellipsis = '…' } = {}) {
  const cut = truncate(s, max, { ellipsis });
  if (cut === s || !cut.endsWith(ellipsis)) return cut;
  const body = cut.slice(0, cut.length - ellipsis.length);
  const space = body.lastIndexOf(' ');
  return space > 0 ? body.slice(0, space).trimEnd() + ellipsis : cut;
}
