package dev.relent.httpclient5;

import static dev.relent.http.contract.HeaderLookupContract.FIRST_LINE;
import static dev.relent.http.contract.HeaderLookupContract.SECOND_LINE;

import dev.relent.http.contract.HeaderLookupContract;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.junit.jupiter.api.Test;

class Hc5AccessTest {
  @Test
  void headersGiveTheFirstValueAndEveryLine() {
    BasicHttpResponse response = new BasicHttpResponse(200);
    response.addHeader("RateLimit", FIRST_LINE);
    response.addHeader("ratelimit", SECOND_LINE);
    HeaderLookupContract.assertGivesEveryLine(Hc5Access.INSTANCE.headers(response));
  }
}
