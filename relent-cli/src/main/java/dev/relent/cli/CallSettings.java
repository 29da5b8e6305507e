package dev.relent.cli;

import java.net.http.HttpRequest;
import java.util.List;

/**
 * The request {@code relent call} checked and what its report says about it: the request to send,
 * its {@code Idempotency-Key} (or null), the names of the headers given and the body's size.
 */
record CallSettings(HttpRequest request, String key, List<String> headerNames, long bodyBytes) {}
