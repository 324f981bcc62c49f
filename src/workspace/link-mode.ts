/**
 * The file-type bits of a symbolic link (`S_IFLNK`). Wherever Waypoint records a mode that may be a
 * link's (checkpoints, journals, rewind states), a regular file's mode is its permission bits
 * alone (`0o644`) and a link's is `LINK_MODE | bits` (`0o120777`): the mode is the kind marker, and
 * the content stored with it is the link's target text. Records written before links were
 * restored carry plain permission bits, so they still read as files.
 */
export const LINK_MODE = 0o120000;

const TYPE_BITS = 0o170000;

/** Whether a recorded mode is a symbolic link's (see {@link LINK_MODE}); null and undefined are not. */
export function isLinkMode(mode: number | null | undefined): boolean {
  return typeof mode === 'number' && (mode & TYPE_BITS) === LINK_MODE;
}

/**
 * Whether two recorded modes describe the same entry: both links (a link's own permission bits
 * cannot be set on most systems, so they are not compared), or the same bits of a file.
 */
export function sameMode(a: number | null | undefined, b: number | null | undefined): boolean {
  if (isLinkMode(a) || isLinkMode(b)) return isLinkMode(a) && isLinkMode(b);
  return a === b;
}
