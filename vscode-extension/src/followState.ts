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

  /** The log scrolled to top, of at most max (by anyone): at its end, it follows again. */
  scrolled(top: number, max: number): void {
    if (max - top < nearEnd) {
      this.following = true;
    }
  }
}
