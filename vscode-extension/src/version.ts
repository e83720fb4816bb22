// Whether the tandem the extension started is of the extension's own build. Both versions are
// `git describe --tags --always --dirty` stamps (the release and `npm run compile` stamp the
// extension, make build and the release stamp tandem), or a Go module version for a tandem
// from `go install`. They are compared as tandem itself compares them (cmd/tandem/version.go;
// both checked against testdata/versions.json).

/** Set by scripts/build.mjs (esbuild's define) in the bundle the .vsix carries. */
declare const TANDEM_BUILD_VERSION: string | undefined;

/** The extension's own version as stamped at build time; '' when unstamped. */
export function extensionVersion(): string {
  return typeof TANDEM_BUILD_VERSION === 'string' ? TANDEM_BUILD_VERSION : '';
}

export type Verdict = 'same' | 'differ' | 'modified' | 'unstamped';

interface Build {
  release?: string;
  commit?: string;
  modified: boolean;
  unstamped: boolean;
}

// A Go pseudo-version, git describe past a tag, a bare abbreviated commit.
const pseudoVersion = /^v\d+\.\d+\.\d+-(?:[0-9A-Za-z.-]*\.)?\d{14}-([0-9a-f]{12})$/;
const describedVersion = /^.+-\d+-g([0-9a-f]{4,40})$/;
const bareCommit = /^([0-9a-f]{7,40})$/;

function parse(version: string | undefined): Build {
  let v = (version ?? '').trim();
  if (['', 'devel', '(devel)', 'unknown'].includes(v)) {
    return { modified: false, unstamped: true };
  }
  let modified = false;
  for (const suffix of ['-dirty', '+dirty']) {
    if (v.endsWith(suffix)) {
      v = v.slice(0, -suffix.length);
      modified = true;
    }
  }
  for (const re of [pseudoVersion, describedVersion, bareCommit]) {
    const m = re.exec(v);
    if (m) {
      return { commit: m[1], modified, unstamped: false };
    }
  }
  return { release: v.replace(/^v/, ''), modified, unstamped: false };
}

/** Whether versions a and b name the same build; a modified or unstamped one cannot be told. */
export function compareVersions(a: string | undefined, b: string | undefined): Verdict {
  const pa = parse(a);
  const pb = parse(b);
  if (pa.unstamped || pb.unstamped) {
    return 'unstamped';
  }
  if (pa.modified || pb.modified) {
    return 'modified';
  }
  if (pa.commit !== undefined && pb.commit !== undefined) {
    const n = Math.min(pa.commit.length, pb.commit.length);
    return pa.commit.slice(0, n) === pb.commit.slice(0, n) ? 'same' : 'differ';
  }
  return pa.release !== undefined && pa.release === pb.release ? 'same' : 'differ';
}

/** What a verdict means, in words. */
export const verdictMeaning: Record<Verdict, string> = {
  same: 'the same build',
  differ: 'different builds',
  modified: 'a build with uncommitted changes, so whether they match cannot be told',
  unstamped: 'a build stamped with no version, so whether they match cannot be told',
};
