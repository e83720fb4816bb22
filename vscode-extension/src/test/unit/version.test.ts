import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { compareVersions } from '../../version';

test('versions compare as the table tandem and the Neovim plugin share says', () => {
  const file = path.join(__dirname, '..', '..', '..', '..', 'testdata', 'versions.json');
  const { cases } = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    cases: { a: string; b: string; verdict: string; why: string }[];
  };
  assert.ok(cases.length > 0, 'testdata/versions.json has no cases');
  for (const c of cases) {
    assert.equal(compareVersions(c.a, c.b), c.verdict, `${c.a} vs ${c.b} (${c.why})`);
    assert.equal(compareVersions(c.b, c.a), c.verdict, `${c.b} vs ${c.a} (${c.why})`);
  }
});
