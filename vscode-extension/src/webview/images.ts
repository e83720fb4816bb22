// Images pasted or dropped into the chat's input: each becomes an image context chip with a
// thumbnail, sent as an ACP image block. The bounds are tandem's (docs/tools.md): PNG, JPEG,
// GIF or WebP, at most 5 MiB; anything else is named in the status line, not sent.
import type { ChatContext } from '../chatContext';
import { el } from './dom';

const imageTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const maxImageBytes = 5 * 1024 * 1024;
let pasted = 0;

/** The thumbnail of an image context, for its chip and the sent message. */
export function thumbnail(c: ChatContext): HTMLImageElement | undefined {
  if (c.kind !== 'image' || !c.data || !c.mimeType) {
    return undefined;
  }
  return el('img', { class: 'thumb', src: `data:${c.mimeType};base64,${c.data}`, alt: c.label });
}

/** Reads a file as base64, without the data URL's prefix. */
function base64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(typeof r.result === 'string' ? r.result.replace(/^data:[^,]*,/, '') : '');
    r.onerror = () => reject(r.error ?? new Error('unreadable'));
    r.readAsDataURL(file);
  });
}

/** Turns the image files of a paste or drop into contexts; refused ones are reported. */
async function attach(files: File[], add: (c: ChatContext) => void, say: (s: string) => void): Promise<void> {
  for (const f of files) {
    if (!imageTypes.includes(f.type)) {
      say(`${f.name || 'The image'} is ${f.type || 'of no known type'}; tandem sends PNG, JPEG, GIF or WebP images. Convert it and paste it again.`);
      continue;
    }
    if (f.size > maxImageBytes) {
      say(`${f.name || 'The image'} is ${f.size} bytes; models take images of at most 5 MiB. Crop or shrink it and paste it again.`);
      continue;
    }
    const n = ++pasted;
    // Clipboard screenshots are all called image.png: number them.
    const label = f.name && f.name !== 'image.png' ? f.name : `Pasted image ${n}`;
    add({ kind: 'image', label, uri: `tandem-image:${n}`, data: await base64(f), mimeType: f.type });
  }
}

/** Makes box take pasted and dropped images as contexts. */
export function acceptImages(box: HTMLElement, add: (c: ChatContext) => void, say: (s: string) => void): void {
  const images = (list: FileList | undefined | null): File[] => Array.from(list ?? []).filter((f) => f.type.startsWith('image/'));
  box.addEventListener('paste', (e) => {
    const files = images(e.clipboardData?.files);
    if (files.length) {
      e.preventDefault(); // not the image's name as text
      void attach(files, add, say);
    }
  });
  box.addEventListener('dragover', (e) => {
    if (Array.from(e.dataTransfer?.items ?? []).some((i) => i.kind === 'file')) {
      e.preventDefault(); // allows the drop
    }
  });
  box.addEventListener('drop', (e) => {
    const files = images(e.dataTransfer?.files);
    if (files.length) {
      e.preventDefault();
      void attach(files, add, say);
    }
  });
}
