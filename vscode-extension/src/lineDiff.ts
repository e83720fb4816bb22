// A line diff of an edit's before and after, for the chat's inline view of an edit card (the webview
// bundles it): changed lines with three lines of context, hunks separated by '@' lines. Pure.

export interface DiffLine {
  op: ' ' | '+' | '-' | '@';
  text: string;
}

/** Above this many cells the middle is shown as removed then added, not aligned. */
const maxCells = 4_000_000;

function split(s: string): string[] {
  if (s === '') {
    return [];
  }
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') {
    lines.pop();
  }
  return lines;
}

/** The full alignment of a and b as ' ', '-' and '+' lines. */
export function align(a: string[], b: string[]): DiffLine[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) {
    pre++;
  }
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) {
    suf++;
  }
  const out: DiffLine[] = a.slice(0, pre).map((text) => ({ op: ' ', text }));
  const x = a.slice(pre, a.length - suf);
  const y = b.slice(pre, b.length - suf);
  if ((x.length + 1) * (y.length + 1) > maxCells) {
    out.push(...x.map((text) => ({ op: '-' as const, text })), ...y.map((text) => ({ op: '+' as const, text })));
  } else {
    // LCS table from the end, then walk forward.
    const n = x.length;
    const m = y.length;
    const t = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        t[i * (m + 1) + j] = x[i] === y[j] ? t[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(t[(i + 1) * (m + 1) + j], t[i * (m + 1) + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x[i] === y[j]) {
        out.push({ op: ' ', text: x[i] });
        i++;
        j++;
      } else if (j < m && (i === n || t[i * (m + 1) + j + 1] > t[(i + 1) * (m + 1) + j])) {
        out.push({ op: '+', text: y[j++] });
      } else {
        out.push({ op: '-', text: x[i++] });
      }
    }
  }
  out.push(...a.slice(a.length - suf).map((text) => ({ op: ' ' as const, text })));
  return out;
}

/** The changed lines of before → after with `context` lines around each change. */
export function lineDiff(before: string, after: string, context = 3): DiffLine[] {
  const all = align(split(before), split(after));
  const keep = new Array<boolean>(all.length).fill(false);
  all.forEach((l, i) => {
    if (l.op !== ' ') {
      for (let k = Math.max(0, i - context); k <= Math.min(all.length - 1, i + context); k++) {
        keep[k] = true;
      }
    }
  });
  const out: DiffLine[] = [];
  let gap = false;
  all.forEach((l, i) => {
    if (keep[i]) {
      if (gap && out.length) {
        out.push({ op: '@', text: '⋯' });
      }
      gap = false;
      out.push(l);
    } else {
      gap = true;
    }
  });
  return out;
}
