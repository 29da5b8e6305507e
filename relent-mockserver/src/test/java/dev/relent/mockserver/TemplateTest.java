package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TemplateTest {

  // RFC 9110's own example instant, Sunday 1994-11-06 08:49:37 UTC.
  private static final long EXAMPLE = Instant.parse("1994-11-06T08:49:37Z").toEpochMilli();

  // Parsers written independently of the server's formatters. RFC 850 years are read as 19xx or
  // 20xx by a sliding window, as RFC 9110 section 5.6.7 asks.
  private static final DateTimeFormatter RFC_850 =
      new DateTimeFormatterBuilder()
          .appendPattern("EEEE, dd-MMM-")
          .appendValueReduced(ChronoField.YEAR, 2, 2, 1970)
          .appendPattern(" HH:mm:ss 'GMT'")
          .toFormatter(Locale.US)
          .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter ASCTIME =
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US).withZone(ZoneOffset.UTC);

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{{http-date}}|Sun, 06 Nov 1994 08:49:37 GMT",
        "{{http-date:+5s}}|Sun, 06 Nov 1994 08:49:42 GMT",
        "{{http-date:5}}|Sun, 06 Nov 1994 08:49:42 GMT",
        "{{http-date:-30s}}|Sun, 06 Nov 1994 08:49:07 GMT",
        "{{http-date:+2m}}|Sun, 06 Nov 1994 08:51:37 GMT",
        "{{http-date:+1h}}|Sun, 06 Nov 1994 09:49:37 GMT",
        "{{http-date:+1d}}|Mon, 07 Nov 1994 08:49:37 GMT",
        "{{rfc850-date}}|Sunday, 06-Nov-94 08:49:37 GMT",
        "{{rfc850-date:+5s}}|Sunday, 06-Nov-94 08:49:42 GMT",
        "{{asctime-date}}|Sun Nov  6 08:49:37 1994",
        "{{asctime-date:+4d}}|Thu Nov 10 08:49:37 1994",
        "{{seconds:5}}|5",
        "{{seconds:2m}}|120",
        "{{seconds:-30s}}|-30",
        "{{epoch-seconds:+10s}}|784111787",
        "retry at {{ seconds:1h }} or later|retry at 3600 or later",
        "no template|no template",
      })
  void rendersEachFormExactly(String template, String expected) {
    assertThat(Template.compile(template).render(EXAMPLE)).isEqualTo(expected);
  }

  @Test
  void datesRoundUpToTheNextWholeSecond() {
    assertThat(Template.compile("{{http-date}}").render(EXAMPLE + 1))
        .isEqualTo("Sun, 06 Nov 1994 08:49:38 GMT");
    assertThat(Template.compile("{{http-date}}").render(EXAMPLE + 999))
        .isEqualTo("Sun, 06 Nov 1994 08:49:38 GMT");
  }

  @Test
  void everyFormParsesBackToTheSameInstantOverManyDates() {
    SplittableRandom random = new SplittableRandom(20_241_106L);
    for (int i = 0; i < 2_000; i++) {
      // 1970..2069: the range a two-digit RFC 850 year can name unambiguously.
      long millis = random.nextLong(0, Instant.parse("2069-12-31T23:59:59Z").toEpochMilli());
      long offset = random.nextLong(-100_000, 100_000);
      String n = (offset >= 0 ? "+" : "") + offset + "s";
      Instant expected = Instant.ofEpochSecond(Math.floorDiv(millis + 999, 1000) + offset);
      if (expected.isBefore(Instant.EPOCH)
          || expected.isAfter(Instant.parse("2069-12-31T00:00:00Z"))) {
        continue;
      }
      String imf = Template.compile("{{http-date:" + n + "}}").render(millis);
      String rfc850 = Template.compile("{{rfc850-date:" + n + "}}").render(millis);
      String asctime = Template.compile("{{asctime-date:" + n + "}}").render(millis);
      assertThat(ZonedDateTime.parse(imf, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant())
          .as(imf)
          .isEqualTo(expected);
      assertThat(imf)
          .matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
      assertThat(Instant.from(RFC_850.parse(rfc850))).as(rfc850).isEqualTo(expected);
      assertThat(Instant.from(ASCTIME.parse(asctime))).as(asctime).isEqualTo(expected);
      assertThat(asctime).hasSize(24);
    }
  }

  @Test
  void rejectsUnknownAndMalformedTemplatesSayingWhatWasExpected() {
    assertThatThrownBy(() -> Template.compile("{{http-dat:+5s}}"))
        .hasMessage(
            "unknown template \"{{http-dat:+5s}}\", expected {{http-date:±N}}, {{rfc850-date:±N}},"
                + " {{asctime-date:±N}}, {{epoch-seconds:±N}} or {{seconds:N}}");
    assertThatThrownBy(() -> Template.compile("{{http-date:+5x}}"))
        .hasMessage(
            "bad offset in \"{{http-date:+5x}}\": expected N with an optional unit s, m, h or d,"
                + " like +5s, -30s or 2m");
    assertThatThrownBy(() -> Template.compile("{{http-date:+5s"))
        .hasMessage("unclosed template in \"{{http-date:+5s\", expected }} after {{");
    assertThatThrownBy(() -> Template.compile("{{seconds}}"))
        .hasMessage("missing N in \"{{seconds}}\", expected {{seconds:N}} like {{seconds:5}}");
  }

  @Test
  void theServerRendersTemplatesWithItsClockWhenItAnswers() throws Exception {
    FakeClock clock = new FakeClock(Instant.ofEpochMilli(EXAMPLE));
    Scenario scenario =
        Scenario.builder()
            .route("/dates")
            .steps(
                Step.status(503)
                    .withHeader("Retry-After", "{{http-date:+5s}}")
                    .withHeader("X-Rfc850", "{{rfc850-date:+5s}}")
                    .withHeader("X-Asctime", "{{asctime-date:+5s}}")
                    .withHeader("X-Seconds", "{{seconds:2m}}"))
            .build();
    try (MockServer server = MockServer.builder(scenario).withClock(clock).start()) {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(server.uri("/dates")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(r.headers().firstValue("Retry-After")).hasValue("Sun, 06 Nov 1994 08:49:42 GMT");
      assertThat(r.headers().firstValue("X-Rfc850")).hasValue("Sunday, 06-Nov-94 08:49:42 GMT");
      assertThat(r.headers().firstValue("X-Asctime")).hasValue("Sun Nov  6 08:49:42 1994");
      assertThat(r.headers().firstValue("X-Seconds")).hasValue("120");
      assertThat(r.headers().firstValue("Date")).hasValue("Sun, 06 Nov 1994 08:49:37 GMT");
      assertThat(server.journal().get(0).arrivedAt()).isEqualTo(Instant.ofEpochMilli(EXAMPLE));
    }
  }
}
