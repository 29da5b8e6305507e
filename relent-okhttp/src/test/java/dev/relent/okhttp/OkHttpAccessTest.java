package dev.relent.okhttp;

import static dev.relent.http.contract.HeaderLookupContract.FIRST_LINE;
import static dev.relent.http.contract.HeaderLookupContract.SECOND_LINE;

import dev.relent.http.contract.HeaderLookupContract;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

class OkHttpAccessTest {
  @Test
  void headersGiveTheFirstValueAndEveryLine() {
    Response response =
        new Response.Builder()
            .request(new Request.Builder().url("http://localhost/").build())
            .protocol(Protocol.HTTP_1_1)
            .code(200)
            .message("OK")
            .addHeader("RateLimit", FIRST_LINE)
            .addHeader("ratelimit", SECOND_LINE)
            .build();
    HeaderLookupContract.assertGivesEveryLine(OkHttpAccess.INSTANCE.headers(response));
  }
}
