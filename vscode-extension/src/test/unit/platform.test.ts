import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { executableTarget, hostTarget } from '../../platform';

test('the executable running these tests is for this host', () => {
  const fd = fs.openSync(process.execPath, 'r');
  const header = Buffer.alloc(64);
  fs.readSync(fd, header, 0, 64, 0);
  fs.closeSync(fd);
  assert.equal(executableTarget(header), hostTarget());
});

test('ELF and Mach-O headers name their target; anything else names none', () => {
  const elf = (machine: number) => {
    const b = Buffer.alloc(64);
    b.writeUInt32BE(0x7f454c46, 0);
    b[4] = 2; // 64-bit
    b[5] = 1; // little-endian
    b.writeUInt16LE(machine, 18);
    return b;
  };
  const macho = (cpu: number) => {
    const b = Buffer.alloc(64);
    b.writeUInt32LE(0xfeedfacf, 0);
    b.writeUInt32LE(cpu, 4);
    return b;
  };
  assert.equal(executableTarget(elf(62)), 'linux-x64');
  assert.equal(executableTarget(elf(183)), 'linux-arm64');
  assert.equal(executableTarget(macho(0x01000007)), 'darwin-x64');
  assert.equal(executableTarget(macho(0x0100000c)), 'darwin-arm64');
  assert.equal(executableTarget(elf(3)), undefined, 'a 32-bit x86 ELF');
  assert.equal(executableTarget(Buffer.from('#!/bin/sh\necho tandem\n')), undefined, 'a script');
  assert.equal(executableTarget(Buffer.alloc(0)), undefined, 'an empty file');
});
