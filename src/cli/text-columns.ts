/** Rows of cells as lines of text whose columns line up, two spaces apart, for a terminal. */
export function alignColumns(rows: readonly (readonly string[])[]): string[] {
  // Counted in code points, so that a name with letters outside the BMP pads as it shows.
  const width = (cell: string): number => [...cell].length;
  const widths = rows.reduce<number[]>((most, row) => row.map((cell, column) => Math.max(most[column] ?? 0, width(cell))), []);
  return rows.map((row) => row.map((cell, column) => cell + ' '.repeat((widths[column] ?? 0) - width(cell))).join('  ').trimEnd());
}
