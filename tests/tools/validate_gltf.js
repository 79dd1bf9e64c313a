// Validates glTF / GLB files with the Khronos glTF-Validator (npm package gltf-validator) and
// prints one JSON line per file: {"file", "errors", "warnings", "messages": [first errors]}.
// Usage: node validate_gltf.js VALIDATOR_DIR FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require(path.resolve(process.argv[2]));

async function main() {
  for (const file of process.argv.slice(3)) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const report = await validator.validateBytes(bytes, {
      uri: path.basename(file),
      maxIssues: 200,
      externalResourceFunction: (uri) =>
        Promise.resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri))))),
    });
    const issues = report.issues;
    const messages = issues.messages
      .filter((m) => m.severity === 0)
      .slice(0, 5)
      .map((m) => `${m.code} ${m.pointer || ''}: ${m.message}`);
    console.log(JSON.stringify({
      file,
      errors: issues.numErrors,
      warnings: issues.numWarnings,
      messages,
    }));
  }
}

main().catch((e) => {
  console.error(`validate_gltf: ${e && e.message ? e.message : e}`);
  process.exit(1);
});
