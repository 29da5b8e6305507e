package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.time.Year;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class HttpDatesTest {

  @Test
  void daysFromCivilMatchesLocalDateForEveryDayOfYears0000To9999() {
    LocalDate end = LocalDate.of(10_000, 1, 1);
    for (LocalDate d = LocalDate.of(0, 1, 1); d.isBefore(end); d = d.plusDays(1)) {
      assertThat(HttpDates.daysFromCivil(d.getYear(), d.getMonthValue(), d.getDayOfMonth()))
          .as("%s", d)
          .isEqualTo(d.toEpochDay());
    }
  }

  @Test
  void leapYearsMatchJavaTime() {
    for (int year = -2_000; year <= 12_000; year++) {
      assertThat(HttpDates.isLeapYear(year)).as("%d", year).isEqualTo(Year.isLeap(year));
    }
  }

  @Test
  void epochSecondBoundsAreTheFourDigitYears() {
    assertThat(HttpDates.MIN_EPOCH_SECOND)
        .isEqualTo(LocalDate.of(0, 1, 1).atStartOfDay().toEpochSecond(ZoneOffset.UTC));
    assertThat(HttpDates.MAX_EPOCH_SECOND + 1)
        .isEqualTo(LocalDate.of(10_000, 1, 1).atStartOfDay().toEpochSecond(ZoneOffset.UTC));
  }

  @Test
  void parseReadsOnlyTheGivenRange() {
    String text = "xx Sun, 06 Nov 1994 08:49:37 GMT yy";

    assertThat(HttpDates.parse(text, 3, 32, 0)).isEqualTo(784_111_777L);
    assertThat(HttpDates.parse(text, 3, 33, 0)).isEqualTo(HttpDates.INVALID);
    assertThat(HttpDates.parse(text, 2, 32, 0)).isEqualTo(HttpDates.INVALID);
    assertThat(HttpDates.parse(text, 5, 5, 0)).isEqualTo(HttpDates.INVALID);
  }

  @Test
  void formatRejectsSecondsOutsideFourDigitYears() {
    assertThat(HttpDates.format(HttpDates.MIN_EPOCH_SECOND))
        .isEqualTo("Sat, 01 Jan 0000 00:00:00 GMT");
    assertThat(HttpDates.format(HttpDates.MAX_EPOCH_SECOND))
        .isEqualTo("Fri, 31 Dec 9999 23:59:59 GMT");
    assertThatThrownBy(() -> HttpDates.format(HttpDates.MAX_EPOCH_SECOND + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epochSecond must be within years 0000-9999: 253402300800");
    assertThatThrownBy(() -> HttpDates.format(HttpDates.MIN_EPOCH_SECOND - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epochSecond must be within years 0000-9999: -62167219201");
  }
}
