// Parses AsyncAPI documents with the AsyncAPI parser itself (@asyncapi/parser), which resolves every
// $ref and runs the spec's semantic rules: what a JSON Schema validation of the document cannot.
// Usage: node parse.cjs PARSER_DIR FILE... ; prints each diagnostic, exits 1 when a document has an
// error (severity 0).
const [parserDir, ...files] = process.argv.slice(2);
const { Parser } = require(require.resolve('@asyncapi/parser', { paths: [parserDir] }));
const names = ['error', 'warning', 'info', 'hint'];
(async () => {
  const parser = new Parser();
  let failed = false;
  for (const file of files) {
    const text = require('node:fs').readFileSync(file, 'utf8');
    const { document, diagnostics } = await parser.parse(text);
    for (const d of diagnostics) {
      console.log(`${file}: ${names[d.severity]} ${d.code}: ${d.message} at ${JSON.stringify(d.path)}`);
    }
    if (!document || diagnostics.some((d) => d.severity === 0)) {
      failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
})();
