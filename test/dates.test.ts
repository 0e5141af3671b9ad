import { describe, expect, it } from "vitest";
import { inWindows, parseDates } from "../src/search/dates.js";
import { dayFirstFor } from "../src/search/date-order.js";

/** Windows as "from..to" strings (a single day as just the day). */
function read(text: string, ref = "2023-10-25", opts = {}): string[] {
  return parseDates(text, ref, opts).map((w) => (w.from === w.to ? w.from : `${w.from}..${w.to}`));
}

describe("date parser: absolute dates", () => {
  it("reads full dates in the usual English forms", () => {
    expect(read("what happened on October 24, 2023?")).toEqual(["2023-10-24"]);
    expect(read("the meeting of 24 Oct 2023")).toEqual(["2023-10-24"]);
    expect(read("24th of October, 2023")).toEqual(["2023-10-24"]);
    expect(read("log for 2023-10-24 please")).toEqual(["2023-10-24"]);
    expect(read("Oct. 3rd 2022")).toEqual(["2022-10-03"]);
  });

  it("a day and month without a year is the latest one not after the reference", () => {
    expect(read("what did we do on 24 Oct", "2023-10-25")).toEqual(["2023-10-24"]);
    expect(read("what did we do on 26 Oct", "2023-10-25")).toEqual(["2022-10-26"]);
    expect(read("December 31", "2024-01-01")).toEqual(["2023-12-31"]);
  });

  it("reads months and years as whole windows, with month ends right", () => {
    expect(read("in March 2023")).toEqual(["2023-03-01..2023-03-31"]);
    expect(read("February 2024")).toEqual(["2024-02-01..2024-02-29"]);
    expect(read("February 2023")).toEqual(["2023-02-01..2023-02-28"]);
    expect(read("April 2023")).toEqual(["2023-04-01..2023-04-30"]);
    expect(read("what did I do in 2022?")).toEqual(["2022-01-01..2022-12-31"]);
    expect(read("2023-06 summary")).toEqual(["2023-06-01..2023-06-30"]);
  });

  it('"in May" is the latest May; "may" the verb is no date', () => {
    expect(read("what happened in May?", "2023-10-25")).toEqual(["2023-05-01..2023-05-31"]);
    expect(read("what happened in May?", "2023-03-02")).toEqual(["2022-05-01..2022-05-31"]);
    expect(read("may I ask what you think?")).toEqual([]);
    expect(read("May I ask what you think?")).toEqual([]);
    expect(read("you may want to march on")).toEqual([]);
    expect(read("the trip in december")).toEqual(["2022-12-01..2022-12-31"]);
  });

  it("rejects impossible days (Feb 29 outside leap years, Apr 31)", () => {
    expect(read("2023-02-29")).toEqual([]);
    expect(read("2024-02-29")).toEqual(["2024-02-29"]);
    expect(read("April 31, 2023")).toEqual([]);
    expect(read("February 29", "2023-10-25")).toEqual(["2020-02-29"]);
  });

  it("an ambiguous numeric date gives both readings unless the order is known", () => {
    expect(read("on 03/04/2023")).toEqual(["2023-03-04", "2023-04-03"]);
    expect(read("on 03/04/2023", "2023-10-25", { dayFirst: true })).toEqual(["2023-04-03"]);
    expect(read("on 03/04/2023", "2023-10-25", { dayFirst: false })).toEqual(["2023-03-04"]);
    expect(read("on 24/10/2023")).toEqual(["2023-10-24"]);
    expect(read("on 10/24/2023")).toEqual(["2023-10-24"]);
    expect(read("on 04/04/23")).toEqual(["2023-04-04"]);
    expect(read("13/13/2023")).toEqual([]);
  });

  it("locale order: en-US month first, en-GB and de day first", () => {
    expect(dayFirstFor("en-US")).toBe(false);
    expect(dayFirstFor("en-GB")).toBe(true);
    expect(dayFirstFor("de-DE")).toBe(true);
    expect(dayFirstFor(undefined)).toBeUndefined();
  });
});

describe("date parser: relative dates", () => {
  // 2023-10-25 is a Wednesday.
  it("today, yesterday, the day before yesterday, last night", () => {
    expect(read("what did I say today")).toEqual(["2023-10-25"]);
    expect(read("and yesterday?")).toEqual(["2023-10-24"]);
    expect(read("the day before yesterday")).toEqual(["2023-10-23"]);
    expect(read("last night", "2024-03-01")).toEqual(["2024-02-29"]);
    expect(read("yesterday", "2023-03-01")).toEqual(["2023-02-28"]);
    expect(read("yesterday", "2024-01-01")).toEqual(["2023-12-31"]);
  });

  it("last week is the previous Monday–Sunday; this week runs to today", () => {
    expect(read("why did the deploy fail last week?")).toEqual(["2023-10-16..2023-10-22"]);
    expect(read("this week")).toEqual(["2023-10-23..2023-10-25"]);
    expect(read("last weekend")).toEqual(["2023-10-21..2023-10-22"]);
  });

  it("N units ago, in words or digits, across month and year ends", () => {
    expect(read("two months ago")).toEqual(["2023-08-01..2023-08-31"]);
    expect(read("3 days ago")).toEqual(["2023-10-22"]);
    expect(read("a year ago")).toEqual(["2022-01-01..2022-12-31"]);
    expect(read("a couple of weeks ago")).toEqual(["2023-10-08..2023-10-14"]);
    expect(read("one month ago", "2023-03-31")).toEqual(["2023-02-01..2023-02-28"]);
    expect(read("two months ago", "2024-01-15")).toEqual(["2023-11-01..2023-11-30"]);
    expect(read("last month", "2024-01-15")).toEqual(["2023-12-01..2023-12-31"]);
    expect(read("last year")).toEqual(["2022-01-01..2022-12-31"]);
    expect(read("the past 3 days")).toEqual(["2023-10-22..2023-10-25"]);
  });

  it("weekdays: the latest one (today counts for 'on', not for 'last')", () => {
    expect(read("on Tuesday")).toEqual(["2023-10-24"]);
    expect(read("what did we decide on Wednesday")).toEqual(["2023-10-25"]);
    expect(read("last Wednesday")).toEqual(["2023-10-18"]);
    expect(read("Friday")).toEqual(["2023-10-20"]);
    expect(read("Sat")).toEqual([]);
  });

  it("a week of a month, the week before last, a bare day of the month", () => {
    expect(read("the first week of October")).toEqual(["2023-10-01..2023-10-07"]);
    expect(read("second week of March 2022")).toEqual(["2022-03-08..2022-03-14"]);
    expect(read("the last week of September")).toEqual(["2023-09-24..2023-09-30"]);
    expect(read("the week before last")).toEqual(["2023-10-09..2023-10-15"]);
    expect(read("what did I do on the 3rd?")).toEqual(["2023-10-03"]);
    expect(read("on the 28th")).toEqual(["2023-09-28"]);
    expect(read("the 3rd floor")).toEqual([]);
  });

  it("no date at all: nothing (numbers, versions and times are no dates)", () => {
    expect(read("fix this TypeScript error")).toEqual([]);
    expect(read("thanks")).toEqual([]);
    expect(read("bump the version to 1.2.3 and run 10 tests at 3:30")).toEqual([]);
    expect(read("")).toEqual([]);
  });

  it("several dates, each once; a Date reference uses its local calendar day", () => {
    expect(read("between March 2023 and 2023-03-15")).toEqual(["2023-03-01..2023-03-31", "2023-03-15"]);
    const ref = new Date(2023, 9, 25, 23, 30);
    expect(parseDates("yesterday", ref).map((w) => w.from)).toEqual(["2023-10-24"]);
    expect(inWindows("2023-10-20", parseDates("last week", "2023-10-25"))).toBe(true);
    expect(inWindows("2023-10-23", parseDates("last week", "2023-10-25"))).toBe(false);
  });

  it("rejects a reference that is not a date", () => {
    expect(() => parseDates("yesterday", "soon")).toThrow(/not a date/);
  });
});

describe("date parser: plans (ahead)", () => {
  it("tomorrow; with `ahead` a day without a year or month is the next one, 'last' still looks back", () => {
    expect(read("the demo is tomorrow")).toEqual(["2023-10-26"]);
    expect(read("tickets for the 20th", "2023-10-25", { ahead: true })).toEqual(["2023-11-20"]);
    expect(read("the 28th", "2023-10-25", { ahead: true })).toEqual(["2023-10-28"]);
    expect(read("Dec 20", "2023-12-21", { ahead: true })).toEqual(["2024-12-20"]);
    expect(read("20 October", "2023-10-20", { ahead: true })).toEqual(["2023-10-20"]);
    expect(read("on Friday", "2023-10-25", { ahead: true })).toEqual(["2023-10-27"]);
    expect(read("last Friday", "2023-10-25", { ahead: true })).toEqual(["2023-10-20"]);
    expect(read("October 24, 2023", "2023-10-25", { ahead: true })).toEqual(["2023-10-24"]);
  });
});
