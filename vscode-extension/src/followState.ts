// Whether the chat's log follows its end: the decision alone, on scroll positions, so it is
// unit-tested without a browser (src/webview/follow.ts applies it to the DOM).

/** Within this many pixels of its end, the log counts as at its end. */
export const nearEnd = 40;

export class FollowState {
  /** Whether new content scrolls the log to its end. */
  following = true;
  /** Where the log was last: a scroll above it, not by the view, is the user's. */
  private last = 0;

  /** The user sent a prompt: show it and follow the answer, wherever they had scrolled. */
  start(): void {
    this.following = true;
  }

  /** The view scrolled itself to top. */
  place(top: number): void {
    this.last = top;
  }

  /**
   * The log scrolled to top, of at most max. At its end it follows again; moved up, and not
   * to the end, the user scrolled (content that shrank clamps to the end, not above it).
   * Returns whether the user scrolled up.
   */
  scrolled(top: number, max: number): boolean {
    const up = top < this.last - 1;
    this.last = top;
    if (max - top < nearEnd) {
      this.following = true;
      return false;
    }
    if (up) {
      this.following = false;
    }
    return up;
  }
}
