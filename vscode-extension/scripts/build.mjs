// Bundles the chat's webview script (src/webview/main.ts and markdown-it) into one file the
// webview loads under its CSP: out/webview/main.js.
import * as esbuild from 'esbuild';

await esbuild.build({
  entryPoints: ['src/webview/main.ts'],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  outfile: 'out/webview/main.js',
  logLevel: 'warning',
});
