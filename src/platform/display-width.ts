/**
 * How many columns a string takes on a fixed-pitch display (a receipt printer,
 * a terminal): East Asian Wide and Fullwidth characters take two, combining
 * marks and invisible format characters none, everything else one. Counted per
 * grapheme cluster, so an emoji sequence or a flag is one picture of two
 * columns, and a letter with its accents one column.
 *
 * Wide and Fullwidth ranges from the Unicode Character Database's
 * EastAsianWidth.txt (W and F, Unicode 14; unassigned code points in the CJK
 * ideograph blocks and planes 2 and 3 are wide by default), with adjacent
 * ranges joined over unassigned code points.
 */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3041, 0x3247],
  [0x3250, 0x4dbf],
  [0x4e00, 0xa4c6],
  [0xa960, 0xa97c],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6b],
  [0xff01, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x1b2fb],
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f320],
  [0x1f32d, 0x1f335],
  [0x1f337, 0x1f37c],
  [0x1f37e, 0x1f393],
  [0x1f3a0, 0x1f3ca],
  [0x1f3cf, 0x1f3d3],
  [0x1f3e0, 0x1f3f0],
  [0x1f3f4, 0x1f3f4],
  [0x1f3f8, 0x1f43e],
  [0x1f440, 0x1f440],
  [0x1f442, 0x1f4fc],
  [0x1f4ff, 0x1f53d],
  [0x1f54b, 0x1f54e],
  [0x1f550, 0x1f567],
  [0x1f57a, 0x1f57a],
  [0x1f595, 0x1f596],
  [0x1f5a4, 0x1f5a4],
  [0x1f5fb, 0x1f64f],
  [0x1f680, 0x1f6c5],
  [0x1f6cc, 0x1f6cc],
  [0x1f6d0, 0x1f6d2],
  [0x1f6d5, 0x1f6df],
  [0x1f6eb, 0x1f6ec],
  [0x1f6f4, 0x1f6fc],
  [0x1f7e0, 0x1f7f0],
  [0x1f90c, 0x1f93a],
  [0x1f93c, 0x1f945],
  [0x1f947, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

function isWide(cp: number): boolean {
  let lo = 0;
  let hi = WIDE.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to] = WIDE[mid];
    if (cp < from) hi = mid - 1;
    else if (cp > to) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Controls, combining marks and invisible format characters (zero-width joiner, bidi marks, ...): no column of their own. */
const NO_COLUMN = /^[\p{Cc}\p{Mn}\p{Me}\p{Cf}]/u;
const EMOJI_PRESENTATION = '\uFE0F';
const REGIONAL_INDICATOR = /^[\u{1F1E6}-\u{1F1FF}]{2}/u;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

function clusterWidth(cluster: string): number {
  if (NO_COLUMN.test(cluster)) return 0;
  // A flag (two regional indicators) and a character asked to show as emoji are pictures, two columns wide.
  if (REGIONAL_INDICATOR.test(cluster) || cluster.includes(EMOJI_PRESENTATION)) return 2;
  return isWide(cluster.codePointAt(0) as number) ? 2 : 1;
}

/** Columns `text` takes when printed. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of graphemes.segment(text)) width += clusterWidth(segment);
  return width;
}

/** The longest start of `text` that fits in `columns`, cut between whole characters (never half a wide one or an accent off its letter). */
export function fitWidth(text: string, columns: number): string {
  let width = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    width += clusterWidth(segment);
    if (width > columns) return text.slice(0, end);
    end = index + segment.length;
  }
  return text;
}
