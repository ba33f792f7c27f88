// The image ships Node 24; the suite must run on it too (package.json brings it as the `node` dev dependency).
it('runs on Node 24 or newer', () => {
  expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
});
