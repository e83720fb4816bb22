// Package documents owns what the agent sees of files: the line model, tags,
// the overlay of editor buffers over the disk, each session's store of seen
// versions and seen lines, path resolution and confinement, and the read,
// grep and glob tools.
//
// Three rules hold everywhere in it:
//
//   - One line model (Scan): a line ends at "\n", "\r\n" is one ending, a
//     lone "\r" is text, a BOM is remembered and not shown. read, grep and the
//     edits package show and number lines the same way: each line as a row
//     (Row), "N:text" with its 1-based number.
//   - A tag (TagOf) names exactly the bytes a result came from — the editor's
//     buffer when the path is open there (Load), else the disk — and the
//     store keeps those bytes under it. The store (Store) records a line as
//     seen only when its row reached the model whole, because edits may
//     anchor only on seen lines.
//   - Nothing is cut silently: a read's output bound marks its cut with the
//     selector that reads the rest, and grep and glob count every entry of
//     their walk in exactly one class (Tally) and report each class that was
//     skipped, cut or not searched.
//
// The walk (Walk) follows git's ignore rules: each ignore file is compiled
// once into lookups by name, extension and path, the rest matched by a port
// of git's own wildmatch, in a per-directory stack. Searching (Matcher) runs
// over whole files (past the size limit streamed in chunks) with a
// required-literal prefilter and ripgrep's Unicode classes, so a search of a
// large tree costs about what ripgrep's does.
package documents
