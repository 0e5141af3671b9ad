/** The order of numeric dates (03/04/2023) for dates.ts's `dayFirst`. */

/** Numeric date order from a BCP 47 locale: day first except where month/day/year is the custom. */
export function dayFirstFor(locale: string | undefined): boolean | undefined {
  if (!locale) return undefined;
  try {
    const order = new Intl.DateTimeFormat(locale, { day: "numeric", month: "numeric", year: "numeric" })
      .formatToParts(new Date(Date.UTC(2001, 10, 22)))
      .filter((p) => p.type === "day" || p.type === "month")
      .map((p) => p.type);
    return order[0] === "day";
  } catch {
    return undefined;
  }
}
