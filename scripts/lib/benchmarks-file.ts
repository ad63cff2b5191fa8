import fs from 'node:fs';

/**
 * Replaces the section between `start` and `end` markers (or appends it), keeping
 * everything else in the file: each benchmark script owns one section of
 * BENCHMARKS.md. `intro` starts the file when it does not exist yet.
 */
export function writeMarkedSection(file: string, markers: { start: string; end: string }, section: string, intro = ''): void {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : intro;
  const startAt = current.indexOf(markers.start);
  const endAt = current.indexOf(markers.end, startAt);
  const next =
    startAt >= 0 && endAt >= 0
      ? current.slice(0, startAt) + section + current.slice(endAt + markers.end.length)
      : `${current.trimEnd()}\n\n${section}\n`;
  // Write then rename, so a crash mid-write cannot truncate other scripts' sections.
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, next);
  fs.renameSync(temp, file);
}
