// Which platform an executable is for, read from its header: a platform .vsix carries the
// tandem of its target, and a package installed where the extension host runs on another
// platform (a remote of another kind) must not start it.

/** The VS Code target this extension host runs on, e.g. linux-x64, darwin-arm64. */
export function hostTarget(): string {
  return `${process.platform}-${process.arch}`;
}

/**
 * The VS Code target (linux-x64, linux-arm64, darwin-x64, darwin-arm64) an ELF or Mach-O
 * executable's first bytes say it is for, or undefined for anything else.
 */
export function executableTarget(header: Uint8Array): string | undefined {
  const b = Buffer.from(header.buffer, header.byteOffset, header.byteLength);
  if (b.length >= 20 && b.readUInt32BE(0) === 0x7f454c46 && b[5] === 1) {
    return { 62: 'linux-x64', 183: 'linux-arm64' }[b.readUInt16LE(18)];
  }
  if (b.length >= 8 && b.readUInt32LE(0) === 0xfeedfacf) {
    return { 0x01000007: 'darwin-x64', 0x0100000c: 'darwin-arm64' }[b.readUInt32LE(4)];
  }
  return undefined;
}
