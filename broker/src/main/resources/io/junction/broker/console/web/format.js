// How numbers and times read on every page.

export function rate(perSecond) {
  return perSecond >= 100 ? Math.round(perSecond).toString() : (perSecond || 0).toFixed(1);
}

export function bytes(n) {
  if (n === undefined || n === null || n < 0) {
    return 'n/a';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
}

export function time(epochMillis) {
  return epochMillis > 0 ? new Date(epochMillis).toLocaleString() : '';
}

/** A datetime-local input's value as epoch ms (local time), or undefined when empty. */
export function epochOf(localDateTime) {
  return localDateTime ? new Date(localDateTime).getTime() : undefined;
}

/** Helpers every page component mixes in, so templates can format. */
export const formatting = {rate, bytes, time};
