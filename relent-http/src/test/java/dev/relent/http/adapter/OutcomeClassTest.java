package dev.relent.http.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.OutcomeDescriber;
import dev.relent.http.HeaderLookup;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The class of an outcome that the HTTP describer gives the meters: a small fixed set. */
class OutcomeClassTest {
  /** A response that is its status alone. */
  private static final ResponseAccess<Integer> STATUS =
      new ResponseAccess<>() {
        @Override
        public String method(Integer response) {
          return "GET";
        }

        @Override
        public String uri(Integer response) {
          return "http://api.example.com/v1/items";
        }

        @Override
        public boolean keyed(Integer response) {
          return false;
        }

        @Override
        public int status(Integer response) {
          return response;
        }

        @Override
        public HeaderLookup headers(Integer response) {
          return HeaderLookup.NONE;
        }
      };

  private final OutcomeDescriber<Integer> describer =
      HttpOutcomes.builder(STATUS).withoutLogging().build().describer();

  @Test
  void aStatusIsItsClassAnd429StandsApart() {
    int[] statuses = {100, 200, 204, 304, 400, 404, 429, 500, 503, 599, 600, 99};
    String[] classes = {
      "1xx", "2xx", "2xx", "3xx", "4xx", "4xx", "429", "5xx", "5xx", "5xx", "other", "other"
    };
    for (int i = 0; i < statuses.length; i++) {
      assertThat(describer.outcomeClass(statuses[i], null))
          .as("HTTP %d", statuses[i])
          .isEqualTo(classes[i]);
    }
  }

  @Test
  void aNetworkFaultIsIoAndAnyOtherFailureNone() {
    assertThat(describer.outcomeClass(null, new ConnectException("refused"))).isEqualTo("io");
    assertThat(describer.outcomeClass(null, new HttpTimeoutException("read"))).isEqualTo("io");
    assertThat(describer.outcomeClass(null, new CompletionException(new IOException("reset"))))
        .isEqualTo("io");
    assertThat(describer.outcomeClass(null, new IllegalStateException("a bug"))).isEqualTo("none");
    assertThat(describer.outcomeClass(null, null)).isEqualTo("none");
  }
}
