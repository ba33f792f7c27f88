/** Money rounded to cents; points times a factor must not show float dust (0.30000000000000004). */
export function money(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}

/** Float-safe floor/ceil for point arithmetic (100 * 0.1 / 0.1 must be 100, not 99.99999). */
export function floorPoints(value: number): number {
  return Math.floor(Number(value.toFixed(9)));
}

export function ceilPoints(value: number): number {
  return Math.ceil(Number(value.toFixed(9)));
}
