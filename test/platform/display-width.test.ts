import { displayWidth, fitWidth } from '../../src/platform/display-width';

describe('displayWidth: columns a string takes on a receipt', () => {
  it.each([
    ['', 0],
    ['Stars', 5],
    ['Balance   1000 Stars', 20],
    ['نقاط', 4], // Arabic: narrow
    ['Punkte für Sie', 14],
    ['ポイント', 8], // katakana: wide
    ['積分', 4], // CJK ideographs
    ['포인트', 6], // Hangul syllables
    ['ＡＢＣ', 6], // fullwidth Latin
    ['ｶﾀｶﾅ', 4], // halfwidth katakana: narrow
    ['、。「」', 8], // CJK punctuation
    ['\u{20000}', 2], // CJK Extension B, outside the BMP
    ['e\u0301', 1], // a letter and its combining accent
    ['a\u200Bb', 2], // zero-width space
    ['\u200Fa', 1], // a bidi mark
    ['tab\there', 7], // a control takes none
    ['🎉', 2],
    ['👨‍👩‍👧', 2], // one emoji sequence joined by zero-width joiners
    ['🇪🇬', 2], // a flag: two regional indicators
    ['❤️', 2], // a narrow symbol shown as emoji
    ['❤', 1],
  ])('%j is %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('fitWidth: the longest start that fits', () => {
  it('keeps a string that fits, whole', () => {
    expect(fitWidth('Stars', 5)).toBe('Stars');
    expect(fitWidth('ポイント', 8)).toBe('ポイント');
  });

  it('cuts narrow text at the column', () => {
    expect(fitWidth('Balance', 3)).toBe('Bal');
    expect(fitWidth('Balance', 0)).toBe('');
  });

  it('never cuts a wide character in half: one that does not fit is left out', () => {
    expect(fitWidth('ポイント', 5)).toBe('ポイ');
    expect(displayWidth(fitWidth('ポイント', 5))).toBe(4);
    expect(fitWidth('a\u{20000}b', 2)).toBe('a');
  });

  it('never separates an accent from its letter, nor the halves of an emoji', () => {
    expect(fitWidth('e\u0301e\u0301', 1)).toBe('e\u0301');
    expect(fitWidth('x👨‍👩‍👧', 2)).toBe('x');
    expect(fitWidth('x👨‍👩‍👧', 3)).toBe('x👨‍👩‍👧');
  });
});
