// The log follows what matters: the end while the user has not scrolled up (a sent prompt
// follows again, wherever they had scrolled), and an open question, kept in view once the
// text before it has rendered. Every change of the log is seen by one MutationObserver and
// acted on in the next frame, after layout, so late renders cannot push a question away.
import { FollowState } from '../followState';

/** Space kept between a revealed question and the log's edge. */
const margin = 8;

export class Follow {
  private readonly state = new FollowState();
  private frame = 0;
  /** An open question, kept in view until it settles or the user scrolls. */
  private pinned: HTMLElement | undefined;
  /** Frames in a row that moved the log to keep the pinned question in view. */
  private settling = 0;

  /** A pointer or finger is down on the log: its scrolling is the user's (a dragged scrollbar). */
  private held = false;
  private lastTop = 0;

  constructor(private readonly log: HTMLElement) {
    const passive = { passive: true };
    log.addEventListener('wheel', (e) => e.deltaY < 0 && this.userUp(), passive);
    log.addEventListener('keydown', (e) => ['PageUp', 'ArrowUp', 'Home'].includes(e.key) && this.userUp());
    log.addEventListener('pointerdown', () => (this.held = true), passive);
    log.addEventListener('touchstart', () => (this.held = true), passive);
    for (const end of ['pointerup', 'pointercancel', 'touchend', 'touchcancel']) {
      window.addEventListener(end, () => (this.held = false), passive);
    }
    log.addEventListener(
      'scroll',
      () => {
        if (this.held && log.scrollTop < this.lastTop) {
          this.userUp();
        }
        this.lastTop = log.scrollTop;
        this.state.scrolled(log.scrollTop, log.scrollHeight - log.clientHeight);
      },
      passive,
    );
    new MutationObserver(() => this.soon()).observe(log, { childList: true, subtree: true, characterData: true });
  }

  /** The user scrolled up: the log stops following, and an open question stops being held in view. */
  private userUp(): void {
    if (this.log.scrollTop > 0) {
      this.state.userScrolledUp();
      this.pinned = undefined;
    }
  }

  /** The user sent a prompt: show it and follow the answer. */
  start(): void {
    this.state.start();
    this.pinned = undefined;
    this.soon();
  }

  /** Brings el into view after what is before it has rendered, and keeps it there. */
  reveal(el: HTMLElement): void {
    this.pinned = el;
    this.soon();
  }

  release(el: HTMLElement): void {
    if (this.pinned === el) {
      this.pinned = undefined;
    }
  }

  /**
   * Calls unseen once el is out of view: scrolled away, or never brought into it. Its first
   * observation comes after the frame that reveals it. Returns what stops watching.
   */
  watch(el: HTMLElement, unseen: () => void): () => void {
    const io = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) {
          io.disconnect();
          unseen();
        }
      },
      { root: this.log },
    );
    io.observe(el);
    return () => io.disconnect();
  }

  private soon(): void {
    this.frame ||= requestAnimationFrame(() => {
      this.frame = 0;
      this.apply();
    });
  }

  private apply(): void {
    const log = this.log;
    const toEnd = log.scrollHeight - log.clientHeight - log.scrollTop;
    if (this.pinned?.isConnected) {
      const v = log.getBoundingClientRect();
      const r = this.pinned.getBoundingClientRect();
      const before = log.scrollTop;
      if (this.state.following && r.top - toEnd >= v.top + margin) {
        log.scrollTop += toEnd; // the end, with the question whole
      } else if (r.bottom > v.bottom - margin) {
        log.scrollTop += r.bottom - v.bottom + margin; // its buttons, at the bottom
      } else if (r.top < v.top) {
        log.scrollTop += Math.max(r.top - v.top - margin, r.bottom - v.bottom + margin);
      }
      // Look again next frame (a few times at most): what came into view may lay out taller
      // than the browser guessed while it was off screen.
      this.settling = log.scrollTop !== before ? this.settling + 1 : 0;
      if (this.settling > 0 && this.settling < 4) {
        this.soon();
      }
    } else if (this.state.following && toEnd > 0) {
      log.scrollTop = log.scrollHeight;
    }
  }
}
