// Bundles what the .vsix ships, so it carries two files of code instead of a node_modules
// tree: the extension with vscode-languageclient (out/extension.js, over tsc's output of the
// same file) and the chat's webview script with markdown-it (out/webview/main.js, loaded
// under the webview's CSP). The licenses of the bundled packages go to
// out/THIRD_PARTY_NOTICES.txt. tsc --strict still type-checks and compiles everything for the
// tests.
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import * as fs from 'node:fs';
import * as path from 'node:path';

// The extension's version, compared with tandem's at each start (src/version.ts): the
// release's (TANDEM_VERSION, from scripts/release), else `git describe` as make build stamps
// tandem, else none (unstamped).
function buildVersion() {
  if (process.env.TANDEM_VERSION) {
    return process.env.TANDEM_VERSION;
  }
  try {
    return execFileSync('git', ['describe', '--tags', '--always', '--dirty'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

const common = { bundle: true, minify: true, metafile: true, logLevel: 'warning' };

const results = await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    define: { TANDEM_BUILD_VERSION: JSON.stringify(buildVersion()) },
    outfile: 'out/extension.js',
  }),
  esbuild.build({
    ...common,
    entryPoints: ['src/webview/main.ts'],
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    outfile: 'out/webview/main.js',
  }),
]);

// Every package a bundle took code from, with its license text.
const packages = new Set();
for (const r of results) {
  for (const input of Object.keys(r.metafile.inputs)) {
    const m = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) {
      packages.add(m[1]);
    }
  }
}
const notices = [...packages].sort().map((name) => {
  const dir = path.join('node_modules', name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const file = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
  const text = file ? fs.readFileSync(path.join(dir, file), 'utf8').trim() : `License: ${pkg.license}`;
  return `${name} ${pkg.version} (${pkg.license})\n\n${text}\n`;
});
fs.writeFileSync('out/THIRD_PARTY_NOTICES.txt', `Packages bundled into this extension:\n\n${notices.join('\n---\n\n')}`);
