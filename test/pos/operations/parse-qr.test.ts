import { parseQr } from '../../../src/pos/redemptions/proof';

/**
 * A QR code is the customer id and the customer's hash. A separator (`:` or
 * `|`), when there is one, decides: the last one splits. With none, the code
 * is the published form: the last six characters are the hash and must be
 * digits.
 */
describe('parseQr', () => {
  it.each([
    ['alice:482913', 'alice', '482913'],
    ['alice|482913', 'alice', '482913'],
    ['mobile_966500001234123456', 'mobile_966500001234', '123456'],
    ['qr-2123456', 'qr-2', '123456'],
    ['a1234567', 'a1', '234567'],
    // A hash that ends in six digits is still the whole part after the separator.
    ['cust:abc123456', 'cust', 'abc123456'],
    ['cust|abc123456', 'cust', 'abc123456'],
    // Customer ids may hold separators and digits: the last separator splits.
    ['store:7:482913', 'store:7', '482913'],
    ['c:12345:678901', 'c:12345', '678901'],
    ['id|with:both|000001', 'id|with:both', '000001'],
  ])('%s is customer %s with hash %s', (qr, customerId, hash) => {
    expect(parseQr(qr)).toEqual({ customerId, hash });
  });

  it.each([
    [':123456', 'no customer id before the separator'],
    ['alice:', 'no hash after the separator'],
    ['123456', 'six digits and no customer id'],
    ['someone', 'no separator and no six-digit hash'],
    ['alice12345', 'five digits only'],
    ['  :482913', 'a blank customer id'],
    [`${'x'.repeat(201)}:482913`, 'a customer id longer than any'],
    [`alice:${'9'.repeat(65)}`, 'a hash longer than any'],
  ])('%s is refused (%s)', (qr) => {
    expect(() => parseQr(qr)).toThrow(expect.objectContaining({ code: 'qr_invalid', status: 422 }));
  });
});
