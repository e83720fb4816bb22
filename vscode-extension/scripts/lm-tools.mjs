// Writes package.json's contributes.languageModelTools from the tools tandem lists to an
// editor (tandem/listTools of `tandem lsp`), so VS Code's chat agents get tandem's own names
// (prefixed tandem_), descriptions and input schemas. Run it after tandem's roster changes:
//   node scripts/lm-tools.mjs [TANDEM]     (default: tandem on PATH)
// The e2e test language_model_tools_are_tandems_own fails until it is run.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import process from 'node:process';

// A path is resolved here: tandem starts in a temporary folder.
const arg = process.argv[2] ?? 'tandem';
const tandem = arg.includes('/') ? path.resolve(arg) : arg;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-lm-tools-'));
const child = spawn(tandem, ['lsp'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
const pending = new Map();
let seq = 0;
let buf = Buffer.alloc(0);

function send(method, params, notification = false) {
  const msg = JSON.stringify(notification ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id: ++seq, method, params });
  child.stdin.write(`Content-Length: ${Buffer.byteLength(msg)}\r\n\r\n${msg}`);
  return notification ? undefined : new Promise((resolve) => pending.set(seq, resolve));
}

child.stdout.on('data', (data) => {
  buf = Buffer.concat([buf, data]);
  for (;;) {
    const head = buf.indexOf('\r\n\r\n');
    const length = head < 0 ? NaN : Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())?.[1]);
    if (Number.isNaN(length) || buf.length < head + 4 + length) {
      return;
    }
    const msg = JSON.parse(buf.subarray(head + 4, head + 4 + length).toString());
    buf = buf.subarray(head + 4 + length);
    pending.get(msg.id)?.(msg.result);
  }
});

const uri = `file://${root}`;
// As the extension declares it: the code tool answers from VS Code's language servers.
await send('initialize', {
  processId: process.pid,
  rootUri: uri,
  capabilities: { experimental: { tandem: { languageQuery: true } } },
  workspaceFolders: [{ uri, name: 'tools' }],
});
send('initialized', {}, true);
const { session } = await send('tandem/openSession', {});
const { tools } = await send('tandem/listTools', { session });
child.kill();
fs.rmSync(root, { recursive: true, force: true });

const file = path.join(import.meta.dirname, '..', 'package.json');
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
pkg.contributes.languageModelTools = tools.map((t) => ({
  name: `tandem_${t.name}`,
  toolReferenceName: `tandem_${t.name}`,
  displayName: `tandem ${t.name}`,
  canBeReferencedInPrompt: true,
  // The first sentence, for the tool pickers.
  userDescription: t.description.split(/(?<=\.)\s/, 1)[0],
  modelDescription: t.description,
  inputSchema: t.inputSchema,
  tags: ['tandem'],
}));
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
process.stdout.write(`package.json: ${tools.length} language-model tools (${tools.map((t) => t.name).join(', ')})\n`);
