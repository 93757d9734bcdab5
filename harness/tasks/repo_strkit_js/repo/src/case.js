// Identifier case conversions for code generators.

function words(s) {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

export function camelCase(s) {
  return words(s).map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

export function snakeCase(s) {
  return words(s).join('_');
}

export function kebabCase(s) {
  return words(s).join('-');
}

export function titleCase(s) {
  return words(s).map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
}
