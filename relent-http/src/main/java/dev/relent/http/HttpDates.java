package dev.relent.http;

/**
 * Parses and formats HTTP-dates (RFC 9110 §5.6.7) by hand, without exceptions or allocation.
 *
 * <p>A recipient must accept three forms:
 *
 * <pre>
 * IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
 * RFC 850      Sunday, 06-Nov-94 08:49:37 GMT
 * asctime      Sun Nov  6 08:49:37 1994
 * </pre>
 *
 * <p>The form is told apart by what follows the leading run of letters: a comma after three letters
 * is IMF-fixdate, a comma after a full day name is RFC 850, a space after three letters is asctime.
 * Each form is then read at fixed offsets, so garbage costs a few comparisons and never an
 * exception (this runs for every {@code Retry-After} and {@code Date} header a client sees).
 *
 * <p>Decisions where the RFC leaves room (each one is lenient only where the meaning stays
 * unambiguous):
 *
 * <ul>
 *   <li>Day names, month names and {@code GMT} are matched ignoring ASCII case (the grammar is
 *       case-sensitive; {@code sun, 06 nov 1994 08:49:37 gmt} has only one possible meaning).
 *   <li>The day name must be a real one of the right form (short in IMF-fixdate and asctime, long
 *       in RFC 850) but need not match the date: the date is what the server means, and rejecting
 *       it would drop the server's wait and let the client retry earlier than asked.
 *   <li>asctime takes the day as {@code " 6"} (grammar), {@code "06"} (grammar) or {@code "6"} with
 *       a single space (lenient: it is what naive formatters produce).
 *   <li>Only {@code GMT} is accepted as the zone ({@code UTC}, {@code +0000} and zone names are not
 *       HTTP-dates). Nothing else is tolerated: no extra spaces, no missing fields, no trailing
 *       text.
 *   <li>Years are 0000–9999 in every form; an impossible date (30 February, 29 February outside a
 *       leap year, hour 24, minute 60) is invalid.
 *   <li>The grammar allows a leap second, {@code 23:59:60}; it is read as the following midnight,
 *       one second later rather than earlier, so a wait derived from it is never too short.
 *   <li>RFC 850's two-digit year is the latest year with those digits whose timestamp is not more
 *       than 50 years after {@code now} (§5.6.7), "more than 50 years" comparing the date and time
 *       field by field against {@code now} with 50 added to its year.
 * </ul>
 *
 * <p>Calendar arithmetic is proleptic Gregorian in UTC (days from civil, after H. Hinnant, "chrono-
 * Compatible Low-Level Date Algorithms").
 */
final class HttpDates {
  /** Returned by {@link #parse} for anything that is not a valid HTTP-date. */
  public static final long INVALID = Long.MIN_VALUE;

  /** First second of 0000-01-01. */
  public static final long MIN_EPOCH_SECOND = -62_167_219_200L;

  /** Last second of 9999-12-31. */
  public static final long MAX_EPOCH_SECOND = 253_402_300_799L;

  private static final int SECONDS_PER_DAY = 86_400;
  private static final String[] SHORT_DAYS = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  private static final String[] LONG_DAYS = {
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"
  };
  private static final String[] MONTHS = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
  };

  private HttpDates() {}

  /**
   * Parses {@code text[start, end)} as an HTTP-date in any of the three forms. Surrounding
   * whitespace is not skipped: the caller trims.
   *
   * @param text the characters to read; not null
   * @param start first index, inclusive
   * @param end last index, exclusive
   * @param nowEpochSecond the current time, used only to resolve RFC 850's two-digit year
   * @return the epoch second, in [{@link #MIN_EPOCH_SECOND}, {@link #MAX_EPOCH_SECOND} + 1] (the
   *     {@code +1} is a leap second on 9999-12-31), or {@link #INVALID}
   */
  public static long parse(CharSequence text, int start, int end, long nowEpochSecond) {
    int i = start;
    while (i < end && isLetter(text.charAt(i))) {
      i++;
    }
    int nameLength = i - start;
    if (i == end || nameLength < 3) {
      return INVALID;
    }
    char separator = text.charAt(i);
    if (separator == ',' && nameLength == 3) {
      return end - start == 29 && matchesAny(text, start, 3, SHORT_DAYS)
          ? imfFixdate(text, start)
          : INVALID;
    }
    if (separator == ',') {
      return end - i == 24 && matchesAny(text, start, nameLength, LONG_DAYS)
          ? rfc850(text, i, nowEpochSecond)
          : INVALID;
    }
    if (separator == ' ' && nameLength == 3 && matchesAny(text, start, 3, SHORT_DAYS)) {
      return asctime(text, start, end);
    }
    return INVALID;
  }

  /**
   * Formats an epoch second as IMF-fixdate, for example {@code Sun, 06 Nov 1994 08:49:37 GMT}.
   *
   * @param epochSecond in [{@link #MIN_EPOCH_SECOND}, {@link #MAX_EPOCH_SECOND}]
   * @return the 29-character date
   * @throws IllegalArgumentException if the second lies outside the years 0000–9999
   */
  public static String format(long epochSecond) {
    if (epochSecond < MIN_EPOCH_SECOND || epochSecond > MAX_EPOCH_SECOND) {
      throw new IllegalArgumentException(
          "epochSecond must be within years 0000-9999: " + epochSecond);
    }
    long days = Math.floorDiv(epochSecond, SECONDS_PER_DAY);
    int secondOfDay = Math.floorMod(epochSecond, SECONDS_PER_DAY);
    long civil = civilFromDays(days);
    int year = (int) (civil >> 9);
    int month = (int) ((civil >> 5) & 0xF);
    int day = (int) (civil & 0x1F);
    StringBuilder sb = new StringBuilder(29);
    sb.append(SHORT_DAYS[Math.floorMod(days + 4, 7)]).append(", ");
    twoDigits(sb, day).append(' ').append(MONTHS[month - 1]).append(' ');
    twoDigits(sb, year / 100);
    twoDigits(sb, year % 100).append(' ');
    twoDigits(sb, secondOfDay / 3600).append(':');
    twoDigits(sb, secondOfDay / 60 % 60).append(':');
    twoDigits(sb, secondOfDay % 60).append(" GMT");
    return sb.toString();
  }

  /** "Sun, 06 Nov 1994 08:49:37 GMT", length already checked. */
  private static long imfFixdate(CharSequence t, int p) {
    if (t.charAt(p + 4) != ' '
        || t.charAt(p + 7) != ' '
        || t.charAt(p + 11) != ' '
        || t.charAt(p + 16) != ' '
        || t.charAt(p + 25) != ' '
        || !isGmt(t, p + 26)) {
      return INVALID;
    }
    int day = digits(t, p + 5, 2);
    int month = month(t, p + 8);
    int year = digits(t, p + 12, 4);
    int secondOfDay = timeOfDay(t, p + 17);
    return toEpochSecond(year, month, day, secondOfDay);
  }

  /** ", 06-Nov-94 08:49:37 GMT" from the comma at {@code p}, length already checked. */
  private static long rfc850(CharSequence t, int p, long nowEpochSecond) {
    if (t.charAt(p + 1) != ' '
        || t.charAt(p + 4) != '-'
        || t.charAt(p + 8) != '-'
        || t.charAt(p + 11) != ' '
        || t.charAt(p + 20) != ' '
        || !isGmt(t, p + 21)) {
      return INVALID;
    }
    int day = digits(t, p + 2, 2);
    int month = month(t, p + 5);
    int twoDigitYear = digits(t, p + 9, 2);
    int secondOfDay = timeOfDay(t, p + 12);
    if (day < 0 || month < 0 || twoDigitYear < 0 || secondOfDay < 0) {
      return INVALID;
    }
    long year = resolveTwoDigitYear(twoDigitYear, month, day, secondOfDay, nowEpochSecond);
    if (year < 0 || year > 9999) {
      return INVALID;
    }
    return toEpochSecond((int) year, month, day, secondOfDay);
  }

  /** "Sun Nov 6 08:49:37 1994" (also "Nov 06" and, leniently, "Nov 6"). */
  private static long asctime(CharSequence t, int p, int end) {
    // Shortest valid form is the lenient one with a one-digit day: 23 characters.
    if (end - p < 23 || t.charAt(p + 7) != ' ') {
      return INVALID;
    }
    int month = month(t, p + 4);
    int j = p + 8;
    int day;
    char c0 = t.charAt(j);
    char c1 = t.charAt(j + 1);
    if (c0 == ' ' && isDigit(c1)) {
      day = c1 - '0';
      j += 2;
    } else if (isDigit(c0) && isDigit(c1)) {
      day = (c0 - '0') * 10 + (c1 - '0');
      j += 2;
    } else if (isDigit(c0) && c1 == ' ') {
      day = c0 - '0';
      j += 1;
    } else {
      return INVALID;
    }
    if (end - j != 14 || t.charAt(j) != ' ' || t.charAt(j + 9) != ' ') {
      return INVALID;
    }
    int secondOfDay = timeOfDay(t, j + 1);
    int year = digits(t, j + 10, 4);
    return toEpochSecond(year, month, day, secondOfDay);
  }

  /**
   * The latest year ending in {@code yy} whose timestamp is not more than 50 years after now.
   * Starts one century above now's and steps down; at most three steps.
   */
  private static long resolveTwoDigitYear(
      int yy, int month, int day, int secondOfDay, long nowEpochSecond) {
    long nowDays = Math.floorDiv(nowEpochSecond, SECONDS_PER_DAY);
    int nowSecondOfDay = Math.floorMod(nowEpochSecond, SECONDS_PER_DAY);
    long civil = civilFromDays(nowDays);
    long nowYear = civil >> 9;
    long limitYear = nowYear + 50;
    long limitRest = restKey((int) ((civil >> 5) & 0xF), (int) (civil & 0x1F), nowSecondOfDay);
    long rest = restKey(month, day, secondOfDay);
    long year = nowYear - Math.floorMod(nowYear, 100) + 100 + yy;
    while (year > limitYear || (year == limitYear && rest > limitRest)) {
      year -= 100;
    }
    return year;
  }

  /** Orders (month, day, second of day) like the fields they are. */
  private static long restKey(int month, int day, int secondOfDay) {
    return ((long) month * 32 + day) * (SECONDS_PER_DAY + 1) + secondOfDay;
  }

  /** Validates the fields (any negative means a malformed field) and converts them. */
  private static long toEpochSecond(int year, int month, int day, int secondOfDay) {
    if (year < 0 || month < 1 || day < 1 || secondOfDay < 0) {
      return INVALID;
    }
    if (day > lengthOfMonth(year, month)) {
      return INVALID;
    }
    return daysFromCivil(year, month, day) * SECONDS_PER_DAY + secondOfDay;
  }

  /**
   * "08:49:37" at {@code p} to seconds of day; -1 if malformed or out of range. {@code 23:59:60} (a
   * leap second) gives 86400, the next midnight.
   */
  private static int timeOfDay(CharSequence t, int p) {
    if (t.charAt(p + 2) != ':' || t.charAt(p + 5) != ':') {
      return -1;
    }
    int hour = digits(t, p, 2);
    int minute = digits(t, p + 3, 2);
    int second = digits(t, p + 6, 2);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0) {
      return -1;
    }
    if (second > 59 && !(second == 60 && hour == 23 && minute == 59)) {
      return -1;
    }
    return hour * 3600 + minute * 60 + second;
  }

  /** {@code count} ASCII digits at {@code p} as a number; -1 if any is not an ASCII digit. */
  private static int digits(CharSequence t, int p, int count) {
    int value = 0;
    for (int k = p; k < p + count; k++) {
      char c = t.charAt(k);
      if (!isDigit(c)) {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  /** Three-letter month name at {@code p}, any ASCII case, to 1..12; -1 if none. */
  private static int month(CharSequence t, int p) {
    for (int m = 0; m < MONTHS.length; m++) {
      if (regionMatches(t, p, MONTHS[m])) {
        return m + 1;
      }
    }
    return -1;
  }

  private static boolean matchesAny(CharSequence t, int p, int length, String[] names) {
    for (String name : names) {
      if (name.length() == length && regionMatches(t, p, name)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isGmt(CharSequence t, int p) {
    return regionMatches(t, p, "GMT");
  }

  /** ASCII-case-insensitive match of {@code name} at {@code p}; the caller ensures the bounds. */
  private static boolean regionMatches(CharSequence t, int p, String name) {
    for (int k = 0; k < name.length(); k++) {
      char c = t.charAt(p + k);
      char n = name.charAt(k);
      // Names are all letters: fold ASCII letters only, so punctuation must match exactly.
      if (c != n && !(isLetter(c) && (c | 0x20) == (n | 0x20))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isLetter(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static StringBuilder twoDigits(StringBuilder sb, int value) {
    return sb.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
  }

  /**
   * Whether the year is a leap year in the proleptic Gregorian calendar.
   *
   * @param year any year
   * @return true for years divisible by 4 but not by 100, or divisible by 400
   */
  public static boolean isLeapYear(long year) {
    return (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
  }

  private static int lengthOfMonth(int year, int month) {
    return switch (month) {
      case 2 -> isLeapYear(year) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  /**
   * Days since 1970-01-01 of a proleptic Gregorian date.
   *
   * @param year any year that keeps the result in range
   * @param month 1..12
   * @param day 1..31, already validated against the month
   * @return days since the epoch, negative before it
   */
  public static long daysFromCivil(long year, int month, int day) {
    long y = month <= 2 ? year - 1 : year;
    long era = Math.floorDiv(y, 400);
    long yearOfEra = y - era * 400;
    int shiftedMonth = month > 2 ? month - 3 : month + 9;
    long dayOfYear = (153L * shiftedMonth + 2) / 5 + day - 1;
    long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097 + dayOfEra - 719_468;
  }

  /**
   * The inverse of {@link #daysFromCivil}, packed as {@code year << 9 | month << 5 | day} so that
   * it needs no allocation.
   */
  private static long civilFromDays(long days) {
    long z = days + 719_468;
    long era = Math.floorDiv(z, 146_097);
    long dayOfEra = z - era * 146_097;
    long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long shiftedMonth = (5 * dayOfYear + 2) / 153;
    int day = (int) (dayOfYear - (153 * shiftedMonth + 2) / 5 + 1);
    int month = (int) (shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9);
    long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    return (year << 9) | ((long) month << 5) | day;
  }
}
