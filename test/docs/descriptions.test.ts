import { type Doc, undescribed } from '../support/undescribed';

/**
 * Every field of the cashier document says what it is: each property of a
 * request or answer schema, each parameter and each header has a description.
 * A field without one fails here by name.
 */
describe('every field of the cashier document is described', () => {
  it('no field without a description', () => {
    expect(undescribed()).toEqual([]);
  });

  it('finds a property without a description', () => {
    const bare = { paths: {}, components: { schemas: { X: { properties: { a: {}, b: { description: 'b' } } } }, parameters: {}, headers: {} } };
    expect(undescribed(bare as unknown as Doc)).toEqual(['X.a']);
  });
});
