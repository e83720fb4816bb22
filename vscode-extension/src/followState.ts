// Whether the chat's log follows its end: the decision alone, so it is unit-tested without a
// browser (src/webview/follow.ts feeds it the user's input and the log's scroll events).
//
// Only the user's own input (a wheel, keys, a dragged scrollbar) stops the following: the log
// also moves by itself (content that lays out shorter than the browser guessed clamps the
// scroll), and such a move must not read as the user looking elsewhere.

/** Within this many pixels of its end, the log counts as at its end. */
export const nearEnd = 40;

export class FollowState {
  /** Whether new content scrolls the log to its end. */
  following = true;

  /** The user sent a prompt: show it and follow the answer, wherever they had scrolled. */
  start(): void {
    this.following = true;
  }

  /** The user scrolled up, by their own input: the log stays where they put it. */
  userScrolledUp(): void {
    this.following = false;
  }

  /** Where the log was at the last scroll. */
  private top = 0;

  /**
   * The log scrolled to top, of at most max (by anyone): brought down to its end, it follows
   * again. A move up never does: a wheel's smooth scroll starts with steps of a few pixels,
   * still near the end, and must not undo the user's scroll up it is the start of.
   */
  scrolled(top: number, max: number): void {
    const down = top > this.top;
    this.top = top;
    if (down && max - top < nearEnd) {
      this.following = true;
    }
  }
}
