import { readFileSync } from 'node:fs';

/** The rows of the table under "Each rule's test" in docs/DESIGN.md: the rule, and the files named for it. */
function rows(): { rule: string; files: string[] }[] {
  const doc = readFileSync('docs/DESIGN.md', 'utf8');
  const section = doc.slice(doc.indexOf("### Each rule's test"));
  return section
    .split('\n')
    .filter((l) => /^\| .+ \| .*`test\//.test(l))
    .map((l) => {
      const [rule, files] = l.split(' | ');
      return { rule: rule.replace(/^\| /, ''), files: [...files.matchAll(/`(test\/[^`]+)`/g)].map((m) => m[1]) };
    });
}

it("each money rule in docs/DESIGN.md names a test file holding a describe named after it", () => {
  const table = rows();
  expect(table).toHaveLength(12);
  for (const { rule, files } of table) {
    // The first file named holds the rule's own describe (a describe.each adds its store in parentheses).
    const source = readFileSync(files[0], 'utf8').replace(/\\'/g, "'");
    expect({ rule, found: source.includes(rule) }).toEqual({ rule, found: true });
  }
});
