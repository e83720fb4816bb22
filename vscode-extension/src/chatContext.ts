// What goes with a chat message besides its text. Pure, so it is unit-tested without an editor.

/** A piece of context sent with a message (a file, a selection, problems), shown as a chip. */
export interface ChatContext {
  kind: string;
  label: string;
  uri?: string;
  text?: string;
  /** An image's bytes in base64 and its MIME type (kind 'image': pasted or dropped). */
  data?: string;
  mimeType?: string;
}

/**
 * A message as ACP content blocks: the text, then each file or selection as a resource_link
 * (tandem reads it with its read tool, so the model gets it tagged and can edit it), and text
 * context (problems) as an embedded resource, and an image as an image block.
 */
export function promptBlocks(text: string, context: ChatContext[]): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [{ type: 'text', text }];
  for (const c of context) {
    if (c.data !== undefined && c.mimeType) {
      blocks.push({ type: 'image', data: c.data, mimeType: c.mimeType });
    } else if (c.text !== undefined) {
      blocks.push({ type: 'resource', resource: { uri: c.uri ?? 'tandem:context', mimeType: 'text/plain', text: c.text } });
    } else if (c.uri) {
      blocks.push({ type: 'resource_link', uri: c.uri, name: c.label });
    }
  }
  return blocks;
}
